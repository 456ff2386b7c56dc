/**
 * An owner's changes to a key's issues inside its ProjectCollector: statuses (and the escalating
 * limits ignoring draws, drawn again every week), merges, deletes and the clean-up's expiry. Each
 * is one transaction of the object's SQLite, made while no batch moves to D1, and then moved there.
 */
import type { IssueStatus, StatusDetails } from "../domain/api/issues";
import { ESCALATION_HOURS, ESCALATION_REDRAW_MS } from "../domain/logs/escalation";
import { deleteExpiredIssues, deleteIssueRows, hourlyCountsOf, type IssueSnapshot, type KeyOwner, unhandledIssuesOf } from "../domain/logs/logStore";
import { OWNER_LIMITS } from "../domain/limits";
import type { EarliestAlarm } from "./earliestAlarm";
import { EscalationRedraws } from "./escalationRedraws";
import { storedUnmergeFigures } from "../domain/logs/issueMerge";
import type { IssueMerges, UnmergeOutcome } from "./issueMerges";
import type { LogOutbox } from "./logOutbox";
import type { Outbox } from "./outbox";
import { type IssueGroups, toSnapshot } from "./projectStorage";

/** What of its object triage works with. */
export interface TriageParts {
	env: Env;
	storage: DurableObjectStorage;
	groups: IssueGroups;
	logs: LogOutbox;
	merges: IssueMerges;
	outbox: Outbox;
	alarm: EarliestAlarm;
	/** The key's owner: null before the key was first used, and once it is revoked. */
	owner: () => KeyOwner | null;
	/** How long after a failed move to D1 the alarm tries again. */
	retryMs: number;
}

export class IssueTriage {
	readonly #parts: TriageParts;
	readonly #redraws: EscalationRedraws;
	/** When an escalating limit is next due to be drawn again (ms; early is harmless): the alarm redraws it. */
	#escalationRedrawAt: number | null = null;

	constructor(parts: TriageParts) {
		this.#parts = parts;
		this.#redraws = new EscalationRedraws(parts.storage.sql, parts.groups);
	}

	/** Sets the alarm for the next escalating limit due; call it inside blockConcurrencyWhile. */
	async start(): Promise<void> {
		await this.#redrawEscalationsAt(this.#redraws.next());
	}

	/**
	 * Sets the status of each of the issues named (one or many, in one commit and one move to D1);
	 * resolving records the release each was resolved in (or that it is the next one), ignoring how
	 * long it lasts. The issues as changed, in the order named (once each: the route drops repeats);
	 * others' hashes left out. "unknown_release" for a release to resolve in that the project never sent.
	 */
	async setStatus(groupHashes: string[], status: IssueStatus, details?: StatusDetails): Promise<IssueSnapshot[] | "unknown_release"> {
		const { groups, env } = this.#parts;
		if (details?.inRelease !== undefined && !groups.releases.has(details.inRelease)) return "unknown_release";
		const owner = this.#parts.owner();
		if (!owner) return [];
		const now = Date.now();
		const change = (hourly?: Map<string, number[]>) =>
			groupHashes.flatMap((hash) => {
				const updated = groups.setStatus(hash, status, details, hourly?.get(hash), now);
				return updated ? [toSnapshot(updated)] : [];
			});
		const escalating = status === "ignored" && details?.escalating;
		const snapshots = escalating ? await this.#withWeekOfEvents(owner, groupHashes, now, change) : change();
		if (snapshots.length === 0) return [];
		if (escalating) await this.#redrawEscalationsAt(now + ESCALATION_REDRAW_MS);
		await this.#flushOwnerChange("issue status");
		// Issues from before the unhandled flag start handled here, while D1 holds what their stored
		// events said (migration 0018): an owner's answer asks D1 once and learns it; when D1 cannot
		// answer, the object's own flags stand.
		const handledHere = snapshots.filter((s) => !s.unhandled);
		const inD1 = handledHere.length > 0 ? await unhandledIssuesOf(env, owner, handledHere.map((s) => s.groupHash)).catch(() => []) : [];
		for (const snapshot of handledHere.filter((s) => inD1.includes(s.groupHash))) {
			groups.markUnhandled(snapshot.groupHash);
			snapshot.unhandled = true;
		}
		return snapshots;
	}

	/**
	 * Merges the issues named into the one of them with the most events (Sentry's merge), here and
	 * then in D1 (after everything accepted before it). The merged issue; null when the object
	 * holds fewer than two of them.
	 */
	async merge(groupHashes: string[]): Promise<IssueSnapshot | null> {
		const { outbox, merges, groups } = this.#parts;
		if (!this.#parts.owner()) return null;
		await outbox.flush();
		const merge = await outbox.exclusive(async () => this.#changeIssues(() => merges.merge(groupHashes)));
		if (!merge) return null;
		await this.#flushOwnerChange("issue merge");
		const merged = groups.row(merge.into);
		return merged && toSnapshot(merged);
	}

	/**
	 * Unmerges the fingerprints named from the issue they were merged into (Sentry's unmerge), here
	 * from D1's events and those waiting, read while no batch moves, and then in D1. The issue left
	 * and those opened again; or why nothing was done.
	 */
	async unmerge(from: string, fingerprints: string[]): Promise<UnmergeOutcome<IssueSnapshot>> {
		const { outbox, merges, env } = this.#parts;
		const owner = this.#parts.owner();
		if (!owner) return { status: "no_issue" };
		await outbox.flush();
		const outcome = await outbox.exclusive(async () => {
			const refusal = merges.unmergeRefusal(from, fingerprints);
			if (refusal) return refusal;
			const stored = await storedUnmergeFigures(env.DB, owner.keyId, from, fingerprints);
			return this.#changeIssues(() => merges.unmerge(from, fingerprints, stored));
		});
		if (outcome.status !== "unmerged") return outcome;
		await this.#flushOwnerChange("issue unmerge");
		return { status: "unmerged", from: toSnapshot(outcome.from), reopened: outcome.reopened.map(toSnapshot) };
	}

	/**
	 * Deletes the issues and their events, here (counters, who they affected, events not yet in D1)
	 * and then in D1, with no move to D1 under way meanwhile: an event that arrives meanwhile opens
	 * its issue anew, as after Sentry's delete. Answers how many of them, and of their events, D1 held.
	 */
	delete(keyId: string, groupHashes: string[]): Promise<{ issues: number; events: number }> {
		const { outbox, groups, logs, merges, env } = this.#parts;
		return outbox.exclusive(async () => {
			this.#changeIssues(() => {
				for (const hash of groupHashes) {
					groups.delete(hash);
					logs.dropPending(hash);
				}
				merges.prune();
			});
			return deleteIssueRows(env.DB, keyId, groupHashes);
		});
	}

	/**
	 * The clean-up: forgets the issues last seen before `cutoff` (counters, affected users), then
	 * deletes up to `limit` of them from D1; answers how many D1 rows went. Both deletes go by
	 * last_seen, so an issue an event revives meanwhile is not touched, and D1 rows left over
	 * go in the next call.
	 */
	forgetBefore(keyId: string, cutoff: number, limit: number): Promise<number> {
		const { groups, merges, env } = this.#parts;
		this.#changeIssues(() => {
			groups.deleteBefore(cutoff);
			merges.prune();
		});
		return deleteExpiredIssues(env.DB, keyId, cutoff, limit);
	}

	/** When the alarm is next due to draw escalating limits again; null when no issue is ignored until escalating. */
	get escalationRedrawAt(): number | null {
		return this.#escalationRedrawAt;
	}

	/**
	 * Sentry draws the limit of an issue ignored until escalating again each week: those drawn a week
	 * ago or more take one from their latest week, up to OWNER_LIMITS.issueMutationHashes at a time
	 * (the alarm moves them to D1 and comes again for the next). When D1 cannot answer, the alarm
	 * tries again later. Called by the alarm, which then sets itself for `escalationRedrawAt`.
	 */
	async redrawDueEscalations(now: number): Promise<void> {
		if (this.#escalationRedrawAt === null || this.#escalationRedrawAt > now) return;
		const owner = this.#parts.owner();
		const due = owner ? this.#redraws.due(now, OWNER_LIMITS.issueMutationHashes) : [];
		try {
			if (owner && due.length > 0) {
				await this.#withWeekOfEvents(owner, due, now, (hourly) =>
					this.#changeIssues(() => {
						for (const hash of due) this.#redraws.redraw(hash, hourly.get(hash) ?? [], now);
					}),
				);
			}
			this.#escalationRedrawAt = this.#redraws.next();
		} catch (err) {
			console.error("escalating limits not drawn again:", err);
			this.#escalationRedrawAt = now + this.#parts.retryMs;
		}
	}

	/** The alarm draws escalating limits again no later than `at` (none when null). */
	async #redrawEscalationsAt(at: number | null): Promise<void> {
		this.#escalationRedrawAt = at === null || this.#escalationRedrawAt === null ? at : Math.min(at, this.#escalationRedrawAt);
		if (this.#escalationRedrawAt !== null) await this.#parts.alarm.noLaterThan(this.#escalationRedrawAt);
	}

	/**
	 * Runs `change` with the issues' events per hour of the ESCALATION_HOURS up to `now`, D1's and
	 * those waiting here, read while none moves: what an escalating limit is drawn from.
	 */
	#withWeekOfEvents<T>(owner: KeyOwner, groupHashes: string[], now: number, change: (hourly: Map<string, number[]>) => T): Promise<T> {
		const { outbox, logs, env } = this.#parts;
		return outbox.exclusive(async () => {
			const hourly = await hourlyCountsOf(env, owner, groupHashes, { now, hours: ESCALATION_HOURS });
			logs.addWaiting(hourly, now);
			return change(hourly);
		});
	}

	/** Changes issues in one transaction; what was read of them before (cached issues, pending rows) is read again, committed or not. */
	#changeIssues<T>(change: () => T): T {
		try {
			return this.#parts.storage.transactionSync(change);
		} finally {
			this.#parts.groups.forget();
			this.#parts.logs.forget();
		}
	}

	/** An owner's change, durable here, moved to D1 now; if D1 is unreachable, the alarm carries it over later. */
	async #flushOwnerChange(change: string): Promise<void> {
		await this.#parts.outbox.flush().catch(async (err) => {
			console.error(`${change} saved but not yet written to D1:`, err);
			await this.#parts.alarm.noLaterThan(Date.now() + this.#parts.retryMs);
		});
	}
}
