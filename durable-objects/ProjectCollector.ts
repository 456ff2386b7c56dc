import { DurableObject } from "cloudflare:workers";
import { hasAccess } from "../domain/accounts/userStore";
import { sameDigest } from "../domain/crypto";
import type { AlertDeliveryView, AlertWebhookView } from "../domain/api/alerts";
import type { IssueActivityView, IssueStatus, StatusDetails } from "../domain/api/issues";
import type { IssueSnapshot, KeyOwner } from "../domain/logs/logStore";
import type { RateWindow } from "../domain/limits";
import { EarliestAlarm } from "./earliestAlarm";
import { FeedbackIntake } from "./feedbackIntake";
import { FeedbackOutbox } from "./feedbackOutbox";
import type { IntakeCommon } from "./intakeParts";
import { LogOutbox } from "./logOutbox";
import { countedAs, LogOutcomes } from "./logOutcomes";
import { Outbox } from "./outbox";
import { HeldWindows } from "./heldWindows";
import { ProjectAlerts } from "./projectAlerts";
import { IssueMerges, type UnmergeOutcome } from "./issueMerges";
import { IssueTriage } from "./issueTriage";
import { KnownKeyCache, type KnownKey } from "./knownKey";
import { LogIntake } from "./logIntake";
import {
	type FeedbackCommand,
	type FeedbackOutcome,
	INVALID_KEY,
	type KeyCheck,
	type LogCommand,
	type LogOutcome,
	type ProjectCall,
	type ProjectCallResult,
	refused,
} from "./projectCommands";
import { ClientEventIds } from "./clientEventIds";
import { SCHEMA, upgradeSchema } from "./projectSchema";
import { IssueGroups } from "./projectStorage";

/**
 * Accepted events reach D1 this long after the first of them, or sooner when an owner reads. A
 * quarter of a second keeps each move small: a busy key's second of events moved at once held
 * requests up for as long as D1 took with them (docs/benchmarks.md).
 */
const FLUSH_DELAY_MS = 250;
const FLUSH_RETRY_MS = 10_000;

/**
 * Everything ingestion needs of one project key, in one object per key (docs/architecture.md#project-keys),
 * so a feedback submission or a log event costs one call and no D1 read:
 * - the key itself: its current hash, its owner's access, App Logs on or off, its windows and
 *   feedback forms, loaded from D1 on first use and dropped at once (`keyChanged`, `purge`) on
 *   every change: regeneration, configuration, revocation, the owner's plan, source maps;
 * - the windows: the key's own feedback and log windows, and a window per source IP per key;
 * - issue grouping (LogIntake): turns a group hash into an issue (the one it was merged into, if
 *   any), knows whether it is new, keeps the issue's counters and status;
 * - feedback (FeedbackIntake): a submission read against the key's forms, its images in R2;
 * - the owner's changes to issues (IssueTriage): statuses, merges, deletes, the clean-up's expiry;
 * - alerts by webhook (ProjectAlerts): decided as an event or a submission is stored;
 * - outboxes of accepted log events and feedback, moved to D1 in multi-row statements by an
 *   alarm a quarter of a second later, or at once when an owner reads (`flush`).
 *
 * The object runs one request at a time and every SQL call is synchronous, so "is this group
 * new?" and "is the window full?" are answered exactly under any concurrency, and an accepted
 * event or submission is in the object's own SQLite (durable) before its answer leaves.
 */
export class ProjectCollector extends DurableObject<Env> {
	#sql: SqlStorage;
	#windows!: HeldWindows;
	#groups!: IssueGroups;
	#clientEventIds!: ClientEventIds;
	#owner: KeyOwner | null = null;
	#revoked = false;
	#alarm: EarliestAlarm;
	#outbox: Outbox;
	#key: KnownKeyCache;
	#feedback: FeedbackOutbox;
	#logs!: LogOutbox;
	#merges!: IssueMerges;
	#outcomes!: LogOutcomes;
	#triage!: IssueTriage;
	#intake!: LogIntake;
	#feedbackIntake!: FeedbackIntake;
	#alerts!: ProjectAlerts;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.#sql = ctx.storage.sql;
		this.#alarm = new EarliestAlarm(ctx.storage);
		this.#outbox = new Outbox(this.#alarm, () => this.#writeBatch(), { retryMs: FLUSH_RETRY_MS });
		this.#feedback = new FeedbackOutbox(this.#sql, env);
		this.#key = new KnownKeyCache(env);
		ctx.blockConcurrencyWhile(async () => {
			this.#createSchema();
			const meta = new Map(this.#sql.exec<{ key: string; value: string }>(`SELECT key, value FROM meta`).toArray().map((r) => [r.key, r.value]));
			const owner = meta.get("owner");
			this.#owner = owner ? (JSON.parse(owner) as KeyOwner) : null;
			this.#revoked = meta.get("revoked") === "1";
			await this.#alarm.load();
			await this.#triage.start();
		});
	}

	#createSchema() {
		for (const statement of SCHEMA) this.#sql.exec(statement);
		upgradeSchema(this.#sql);
		this.#windows = new HeldWindows(this.#sql);
		this.#groups = new IssueGroups(this.#sql);
		this.#logs = new LogOutbox(this.#sql, this.#groups);
		this.#merges = new IssueMerges(this.#sql, this.#groups);
		this.#clientEventIds = new ClientEventIds(this.#sql);
		this.#outcomes = new LogOutcomes(this.#sql);
		this.#alerts = new ProjectAlerts(this.#sql, this.#groups);
		const common: IntakeCommon = {
			windows: this.#windows,
			alerts: this.#alerts,
			tookHits: (now, windows) => this.#tookHits(now, windows),
			flushSoon: () => this.#alarm.noLaterThan(Date.now() + FLUSH_DELAY_MS),
		};
		this.#intake = new LogIntake({
			...common,
			storage: this.ctx.storage,
			groups: this.#groups,
			merges: this.#merges,
			logs: this.#logs,
			clientEventIds: this.#clientEventIds,
		});
		this.#feedbackIntake = new FeedbackIntake({ ...common, feedback: this.#feedback });
		this.#triage = new IssueTriage({
			env: this.env,
			storage: this.ctx.storage,
			groups: this.#groups,
			logs: this.#logs,
			merges: this.#merges,
			outbox: this.#outbox,
			alarm: this.#alarm,
			owner: () => (this.#revoked ? null : this.#owner),
			retryMs: FLUSH_RETRY_MS,
		});
	}

	// -----------------------------------------------------------------------
	// The key

	/** The key changed in D1 (configuration, secret, owner's plan, source maps): the next request reloads it. */
	async keyChanged(): Promise<void> {
		this.#key.changed();
	}

	/** 401 (not this key's current hash, revoked, deleted), 402 (owner without access), 403 for logs when App Logs are off, 401 for a DSN of another project. */
	async #admit(check: KeyCheck, { logs }: { logs: boolean }): Promise<KnownKey | ReturnType<typeof refused>> {
		if (this.#revoked) return INVALID_KEY;
		const known = await this.#key.get(check.keyId);
		if (this.#revoked || !known || known.key.id !== check.keyId || !sameDigest(check.keyHash, known.key.keyHash)) return INVALID_KEY;
		if (!hasAccess(known.owner)) return refused(402, "The project owner has neither a Pro subscription nor an active trial");
		if (logs && !known.key.logsEnabled) return refused(403, "App Logs are disabled for this project");
		if (check.dsnId !== undefined && known.key.dsnId !== check.dsnId) {
			return refused(401, `The project key does not belong to project ${check.dsnId}: check the DSN`);
		}
		if (!this.#owner) {
			this.#owner = { keyId: known.key.id, userId: known.key.userId };
			this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('owner', ?)`, JSON.stringify(this.#owner));
		}
		return known;
	}

	/**
	 * The key's checks alone, for a request that stores nothing: a Sentry envelope without an
	 * event, an event the Worker found unreadable (`dropping: "invalid"`), or one raised in a
	 * browser extension, which is dropped when the key filters them (`filtered`). The event
	 * dropped is counted as its outcome.
	 */
	async admitLogs(check: KeyCheck, dropping?: "invalid" | "browser-extension"): Promise<{ status: "admitted"; filtered: boolean } | ReturnType<typeof refused>> {
		const admitted = await this.#admit(check, { logs: true });
		if ("status" in admitted) return admitted;
		const filtered = dropping === "browser-extension" && admitted.key.filterBrowserExtensions;
		if (filtered || dropping === "invalid") this.#outcomes.store(filtered ? "filtered" : "invalid");
		return { status: "admitted", filtered };
	}

	/** The key's checks, then the events its Sentry SDK says it dropped (a client report), counted as `client_discard`. */
	async clientDiscarded(check: KeyCheck, events: number): Promise<{ status: "admitted" } | ReturnType<typeof refused>> {
		const admitted = await this.#admit(check, { logs: true });
		if ("status" in admitted) return admitted;
		this.#outcomes.store("client_discard", events);
		return { status: "admitted" };
	}

	/** The key's log events of the last `days` UTC days, by outcome (docs/api.md#log-outcomes). */
	async logOutcomes(days: number) {
		return this.#outcomes.recent(days);
	}

	/** A window kept per source IP inside this key's object: one address cannot use up another's share. */
	async #tookHits(now: number, windows: RateWindow[]): Promise<void> {
		await this.#alarm.noLaterThan(now + Math.max(...windows.map((w) => w.windowSeconds)) * 1000);
	}

	/**
	 * Calls an isolate's concurrent requests made (workers/keys/projectCalls.ts), answered in order
	 * exactly as one by one. Calls that wait on nothing outside the object (no images, the key
	 * already loaded) run in one turn, so what they store is one commit. A call that fails fails
	 * alone: what the calls before it stored stays stored and answered. The window hits the calls
	 * took are stored together at the end, one statement rather than one per call.
	 */
	async calls(calls: ProjectCall[]): Promise<ProjectCallResult[]> {
		const results: ProjectCallResult[] = [];
		for (const call of calls) {
			try {
				results.push({ outcome: call.method === "submitFeedback" ? await this.#submitFeedback(call.command) : await this.#ingestLog(call.command) });
			} catch (err) {
				console.error(`${call.method} failed:`, err);
				results.push({ failed: String(err) });
			}
		}
		try {
			this.#windows.writeTaken();
			this.#outcomes.write();
		} catch (err) {
			// The windows still count these hits in memory, as the outcomes do; only a restart would forget them.
			console.error("window hits or outcomes not stored:", err);
		}
		return results;
	}

	// -----------------------------------------------------------------------
	// Feedback

	/** Order of answers: the key's (401/402), then FeedbackIntake's. A wrong key uses up no window. */
	async #submitFeedback(c: FeedbackCommand): Promise<FeedbackOutcome> {
		const admitted = await this.#admit(c, { logs: false });
		if ("status" in admitted) return admitted;
		return this.#feedbackIntake.accept(c, admitted.key, Date.now());
	}

	// -----------------------------------------------------------------------
	// Logs

	/** Order of answers: the key's (401/402/403), then LogIntake's. A wrong key uses up no window. */
	async #ingestLog(c: LogCommand): Promise<LogOutcome> {
		const admitted = await this.#admit(c, { logs: true });
		if ("status" in admitted) return admitted;
		const now = Date.now();
		const outcome = await this.#intake.accept(c, admitted.key, now);
		const counted = countedAs(outcome);
		if (counted) this.#outcomes.count(counted, now);
		return outcome;
	}

	// -----------------------------------------------------------------------
	// Owner operations

	/** Sets the status of each of the issues named: IssueTriage.setStatus. */
	async setStatus(groupHashes: string[], status: IssueStatus, details?: StatusDetails): Promise<IssueSnapshot[] | "unknown_release"> {
		return this.#triage.setStatus(groupHashes, status, details);
	}

	/** Merges the issues named into the one with the most events: IssueTriage.merge. */
	async mergeIssues(groupHashes: string[]): Promise<IssueSnapshot | null> {
		return this.#triage.merge(groupHashes);
	}

	/** Unmerges the fingerprints named from the issue they were merged into: IssueTriage.unmerge. */
	async unmergeIssues(from: string, fingerprints: string[]): Promise<UnmergeOutcome<IssueSnapshot>> {
		return this.#triage.unmerge(from, fingerprints);
	}

	/** The issue this one was merged into, through merges of merges; null when it was not merged. */
	async issueMergedInto(groupHash: string): Promise<string | null> {
		const into = this.#merges.resolve(groupHash);
		return into === groupHash ? null : into;
	}

	/** The fingerprints merged into the issue (the hashes of the issues they opened), in order. */
	async mergedInto(groupHash: string): Promise<string[]> {
		return this.#merges.mergedInto(groupHash);
	}

	/** Deletes the issues and their events, here and in D1: IssueTriage.delete. */
	async deleteIssues(keyId: string, groupHashes: string[]): Promise<{ issues: number; events: number }> {
		return this.#triage.delete(keyId, groupHashes);
	}

	/** The clean-up's expiry of the issues last seen before `cutoff`: IssueTriage.forgetBefore. */
	async forgetIssuesBefore(keyId: string, cutoff: number, limit: number): Promise<number> {
		return this.#triage.forgetBefore(keyId, cutoff, limit);
	}

	/**
	 * Leaves the owner's note in the issue's activity (on the issue it was merged into, if it was);
	 * null for an issue the object does not hold.
	 */
	async addIssueNote(groupHash: string, text: string): Promise<IssueActivityView | null> {
		const hash = this.#merges.resolve(groupHash);
		if (!this.#groups.row(hash)) return null;
		const at = Date.now();
		this.#groups.activity.note(hash, at, { kind: "note", text });
		return { kind: "note", text, at: new Date(at).toISOString() };
	}

	/** The issue's activity, newest first (none for an issue the object does not hold). */
	async issueActivity(groupHash: string): Promise<IssueActivityView[]> {
		return this.#groups.activity.of(groupHash);
	}

	// -----------------------------------------------------------------------
	// Alerts (ProjectAlerts): the webhook, and how its last delivery went

	/** The webhook; `change` sets it first (ProjectAlerts.set: a null URL removes it), its alerts linking to the console at `consoleOrigin`. */
	async alertWebhook(change?: { url: string | null; consoleOrigin: string; feedback?: boolean }): Promise<AlertWebhookView | null> {
		if (change) this.#alerts.set(change.url, change.consoleOrigin, Date.now(), change.feedback);
		return this.#alerts.webhook();
	}

	async noteAlertDelivery(url: string, delivery: AlertDeliveryView): Promise<void> {
		this.#alerts.noteDelivery(url, delivery);
	}

	/** Moves everything accepted so far to D1; owner reads call this first so they never miss an event. */
	flush(): Promise<void> {
		return this.#outbox.flush();
	}

	/**
	 * `flush`, answering the project's newest release (ProjectReleases.newest): a search for
	 * `release:latest` costs no call besides the flush. Read first, so the events of the release
	 * answered are among those moved.
	 */
	async flushNewestRelease(): Promise<string | null> {
		const newest = this.#groups.releases.newest();
		await this.flush();
		return newest;
	}

	/**
	 * The key is being revoked: refuse what still arrives with it, move the feedback it accepted
	 * to D1 (feedback outlives its key), then forget everything. When D1 fails the key is left
	 * working and the caller fails, to be retried.
	 */
	async purge(): Promise<void> {
		this.#revoked = true;
		try {
			await this.flush();
		} catch (err) {
			this.#revoked = false;
			throw err;
		}
		await this.ctx.storage.deleteAll();
		await this.#alarm.clear();
		this.#createSchema();
		this.#sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('revoked', '1')`);
	}

	// -----------------------------------------------------------------------
	// Moving rows to D1

	/**
	 * One batch of events, changed issues and feedback, in one D1 transaction; true when more may
	 * be waiting. A revoked key's log rows are not written (they are being deleted); its feedback is.
	 */
	async #writeBatch(): Promise<boolean> {
		const owner = this.#revoked ? null : this.#owner;
		if (owner) await this.#logs.takeSeededUsers(this.env.DB, owner.keyId);
		// Merges first: the events and changes of merged issues this batch moves are the merged issue's.
		const merges = owner ? this.#merges.nextBatch(this.env.DB, owner) : null;
		const logs = owner ? this.#logs.nextBatch(this.env.DB, owner) : null;
		const feedback = this.#feedback.nextBatch(this.env.DB);
		const statements = [...(merges?.statements ?? []), ...(logs?.statements ?? []), ...feedback.statements];
		if (statements.length === 0) return false;
		// Issues and their events land in one D1 transaction: never an event without its issue.
		await this.env.DB.batch(statements);
		merges?.written();
		logs?.written();
		feedback.written();
		return (logs?.more ?? false) || feedback.more;
	}

	/** Moves the outboxes to D1, ends the windows' expired hits (one row per hit, per IP) and draws escalating limits again when due. */
	async alarm(): Promise<void> {
		this.#alarm.fired();
		this.#clientEventIds.sweep(Date.now());
		const latestHit = this.#windows.sweep(Date.now());
		if (latestHit !== null) await this.#alarm.noLaterThan(latestHit);
		await this.#triage.redrawDueEscalations(Date.now());
		if (!(await this.#outbox.flushOrRetry())) return;
		if (!this.#revoked && (this.#merges.hasPending() || this.#logs.hasPending() || this.#feedback.hasPending())) await this.#alarm.noLaterThan(Date.now() + FLUSH_DELAY_MS);
		const redrawAt = this.#triage.escalationRedrawAt;
		if (redrawAt !== null) await this.#alarm.noLaterThan(redrawAt);
	}
}
