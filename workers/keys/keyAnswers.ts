/**
 * Between the ingestion endpoints and the key's ProjectCollector: a body problem travels to the
 * object (which answers key and window checks first), and a refusal comes back as the answer.
 */
import type { Refusal } from "../../durable-objects/projectCommands";
import { InvalidInput } from "../../domain/errors";
import { HttpError, tooManyRequests } from "../http";
import { forgetPresentedKey, type PresentedKey } from "./authenticateKey";

/**
 * The body `read` gives, or the 413/400 it failed with (the body's size and JSON, or the field
 * rules of what it holds), for the object to answer in its turn, after the key and the windows.
 */
export async function bodyOrProblem<T>(read: () => Promise<T>): Promise<{ body: T } | { problem: Refusal }> {
	try {
		return { body: await read() };
	} catch (err) {
		if (err instanceof InvalidInput) return { problem: { status: 400, message: err.message } };
		if (!(err instanceof HttpError)) throw err;
		return { problem: { status: err.status, message: err.message, body: err.body } };
	}
}

export function refusalError(refusal: Refusal): HttpError {
	return refusal.retryAfterSeconds === undefined
		? new HttpError(refusal.status, refusal.message, refusal.body)
		: tooManyRequests(refusal.retryAfterSeconds, refusal.message);
}

/** The outcome, or the refusal thrown as its answer; a 401 also drops the key from this isolate's lookup. */
export function answerOf<T extends { status: string }>(key: PresentedKey, outcome: T): Exclude<T, { status: "refused" }> {
	if (!("refusal" in outcome)) return outcome as Exclude<T, { status: "refused" }>;
	const { refusal } = outcome as { refusal: Refusal };
	if (refusal.status === 401) forgetPresentedKey(key);
	throw refusalError(refusal);
}

/** A call to the key's object that failed (storage, D1 while loading the key) is a 500 saying so. */
export async function orStorageFailure<T>(call: Promise<T>, what: string): Promise<T> {
	try {
		return await call;
	} catch (err) {
		console.error(`${what} could not be stored:`, err);
		throw new HttpError(500, `${what} could not be stored; try again`);
	}
}
