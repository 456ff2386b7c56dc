CREATE TABLE `artifacts` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`release` text,
	`url` text NOT NULL,
	`debug_id` text,
	`type` text NOT NULL,
	`source_map_url` text,
	`object_key` text NOT NULL,
	`size` integer NOT NULL,
	`bundle` text,
	`created_at` integer NOT NULL,
	`used_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `artifacts_key_release_url_idx` ON `artifacts` (`key_id`,`release`,`url`);--> statement-breakpoint
CREATE UNIQUE INDEX `artifacts_key_debug_id_type_idx` ON `artifacts` (`key_id`,`debug_id`,`type`);--> statement-breakpoint
CREATE INDEX `artifacts_key_created_idx` ON `artifacts` (`key_id`,`created_at`,`size`);--> statement-breakpoint
CREATE INDEX `artifacts_key_bundle_idx` ON `artifacts` (`key_id`,`bundle`);--> statement-breakpoint
CREATE INDEX `artifacts_used_idx` ON `artifacts` (`used_at`);--> statement-breakpoint
CREATE TABLE `upload_chunks` (
	`key_id` text NOT NULL,
	`checksum` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`key_id`, `checksum`),
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `upload_chunks_created_idx` ON `upload_chunks` (`created_at`);--> statement-breakpoint
CREATE TABLE `upload_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`key_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_hint` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`key_id`) REFERENCES `project_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `upload_tokens_token_hash_unique` ON `upload_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `upload_tokens_key_idx` ON `upload_tokens` (`key_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `project_keys` ADD `artifacts_version` integer DEFAULT 0 NOT NULL;