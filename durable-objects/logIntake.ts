/**
 * A log event's way into its key's ProjectCollector once the key has let it in: the address's and
 * the key's windows, the issue it joins (through merges, and under the previous grouping rules),
 * the project's issue cap, an SDK's retry, and the outbox, all in one transaction of the object's
 * SQLite, so the event is stored (durable) or not at all before its answer leaves.
 */
import { LOG_LIMITS, LOG_RATE, type RateWindow } from "../domain/limits";
import type { ClientEventIds } from "./clientEventIds";
import type { IntakeCommon } from "./intakeParts";
import { alertActionOf } from "./projectAlerts";
import type { IssueMerges } from "./issueMerges";
import type { KnownKey } from "./knownKey";
import type { LogOutbox } from "./logOutbox";
import { type LogCommand, type LogEventCommand, type LogOutcome, refused } from "./projectCommands";
import type { IssueGroups } from "./projectStorage";

/** What of its object the log intake works with. */
export interface IntakeParts extends IntakeCommon {
	storage: DurableObjectStorage;
	groups: IssueGroups;
	merges: IssueMerges;
	logs: LogOutbox;
	clientEventIds: ClientEventIds;
}

export class LogIntake {
	readonly #parts: IntakeParts;

	constructor(parts: IntakeParts) {
		this.#parts = parts;
	}

	/**
	 * Order of answers after the key's: the IP's window (429), the body the Worker could not read
	 * or accept (413, 400), a new issue past the project's cap (403), the key's window (429). Both
	 * windows count only accepted events, so a bad body uses up nothing.
	 */
	async accept(c: LogCommand, key: KnownKey["key"], now: number): Promise<LogOutcome> {
		const { windows: held, groups, storage } = this.#parts;
		const ipWindow = { ...LOG_RATE.perIp, name: `logs-ip:${c.ip}` };
		const ip = held.peek(now, ipWindow);
		if (ip.used >= ipWindow.limit) return refused(429, "Too many log events from this address", { retryAfterSeconds: ip.retryAfterSeconds });
		if ("problem" in c) return { status: "refused", refusal: c.problem };
		if (c.artifactsVersion !== key.artifactsVersion) return { status: "stale_artifacts", artifactsVersion: key.artifactsVersion };

		const limit = Number.isSafeInteger(key.logsRateLimitPerMinute) && key.logsRateLimitPerMinute > 0 ? key.logsRateLimitPerMinute : LOG_RATE.defaultPerKey;
		const windows = [ipWindow, { name: "logs", limit, windowSeconds: LOG_RATE.perKeyWindowSeconds }];
		let outcome: LogOutcome;
		try {
			outcome = storage.transactionSync(() => this.#store(c.body, key.projectName, now, windows));
		} catch (err) {
			// The releases, issues and users noted in memory were rolled back in SQLite.
			groups.forget();
			throw err;
		}
		if (outcome.status === "accepted" && !outcome.repeat) {
			// Taken once the event is stored, so one that fails to store uses up nothing.
			held.take(now, windows);
			await this.#parts.tookHits(now, windows);
			await this.#parts.flushSoon();
		}
		return outcome;
	}

	#store(c: LogEventCommand, project: string, now: number, windows: RateWindow[]): LogOutcome {
		const { windows: held, groups, merges, logs, clientEventIds, storage, alerts } = this.#parts;
		// An issue merged into another gives it its events; one opened under the previous grouping rules goes on taking them.
		let fingerprintHash = c.groupHash;
		let groupHash = merges.resolve(fingerprintHash);
		if (!groups.state(groupHash)) {
			if (c.previousGroupHash === undefined) return { status: "previous_hash_needed" };
			const previous = c.previousGroupHash;
			const previousGroup = previous ? merges.resolve(previous) : null;
			if (previous && previousGroup && groups.state(previousGroup)) [fingerprintHash, groupHash] = [previous, previousGroup];
		}
		if (groupHash !== c.groupHash) c = { ...c, groupHash };
		const group = groups.state(c.groupHash);
		if (!group && storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM groups`).one().n >= LOG_LIMITS.issuesPerProject) {
			return refused(
				403,
				`The project has reached ${LOG_LIMITS.issuesPerProject} issues, the most one project may hold; issues whose events are past the log retention period are removed`,
			);
		}

		// The windows: exact, counting only what was let through (taken by the caller once stored).
		const window = held.check(now, windows);
		if (!window.allowed) return refused(429, "Too many log events for this project key", { retryAfterSeconds: window.retryAfterSeconds });

		// A repeat of an event stored in the last day (an SDK's retry): answered as it was, counted once.
		if (c.clientEventId !== null && clientEventIds.isRepeat(c.clientEventId, c.receivedAt)) {
			return { status: "accepted", groupHash: c.groupHash, isNew: false, repeat: true };
		}
		const reopened = groups.record(c, group);
		// The issue its fingerprint opens, kept with an event a merge gave another: what an unmerge moves back.
		logs.add(c, fingerprintHash === groupHash ? null : fingerprintHash);
		const alert = alerts.issueDue(alertActionOf(!group, reopened), c, project, now);
		return { status: "accepted", groupHash: c.groupHash, isNew: !group, ...(alert && { alert }) };
	}
}
