/**
 * The project's alerts (docs/api.md#alerts-owner): a webhook URL (Slack, Discord, Mattermost or any
 * receiver of JSON) told when an issue opens, regresses or comes back from being ignored, and, unless
 * turned off, when new feedback arrives. The URL carries its receiver's token, so once saved it
 * shows masked, scheme and host only.
 */
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { AlertDeliveryView } from "../../../domain/api/alerts";
import { ALERT_LIMITS } from "../../../domain/limits";
import { api } from "../api";
import { ago, plural } from "../format";
import { keys, useAlertWebhook } from "../queries";
import { queryClient, refreshAfter } from "../queryClient";
import { ActionError, QueryState } from "./QueryState";

/** "https://hooks.slack.com/…": enough to recognize the receiver, none of its token. */
function masked(url: string): string {
	try {
		const { protocol, host } = new URL(url);
		return `${protocol}//${host}/…`;
	} catch {
		return "…";
	}
}

function deliveryLine(delivery: AlertDeliveryView | null): string {
	if (!delivery) return "No alert sent yet.";
	const tries = delivery.attempts > 1 ? ` (${delivery.attempts} tries)` : "";
	if (delivery.delivered) return `Last delivery: ${delivery.status}, ${ago(delivery.at)}${tries}.`;
	const why = delivery.error ?? (delivery.status === null ? "no answer" : `status ${delivery.status}`);
	return `Last delivery failed ${ago(delivery.at)}${tries}: ${why}`;
}

export function AlertsCard({ projectName }: { projectName: string }) {
	const webhook = useAlertWebhook(projectName);
	const [url, setUrl] = useState("");
	const [changing, setChanging] = useState(false);
	/** The form's "Also for new feedback": on for a first webhook, the current setting for a change. */
	const [feedback, setFeedback] = useState(true);
	const queryKey = keys.alertWebhook(projectName);
	const save = useMutation({
		mutationFn: () => api.setAlertWebhook(projectName, url, feedback),
		onSuccess: (saved) => {
			queryClient.setQueryData(queryKey, saved);
			setUrl("");
			setChanging(false);
		},
	});
	// The saved webhook's setting, saved at once (shown as asked while it saves): the same URL keeps its last delivery.
	const [feedbackAsked, setFeedbackAsked] = useState<boolean | null>(null);
	const toggleFeedback = useMutation({
		mutationFn: ({ url, on }: { url: string; on: boolean }) => api.setAlertWebhook(projectName, url, on),
		onSuccess: (saved) => queryClient.setQueryData(queryKey, saved),
		onSettled: (_answer, error) => {
			setFeedbackAsked(null);
			return refreshAfter(error, { queryKey });
		},
	});
	const remove = useMutation({
		mutationFn: () => api.removeAlertWebhook(projectName),
		onSuccess: () => queryClient.setQueryData(queryKey, null),
		onSettled: (_answer, error) => refreshAfter(error, { queryKey }),
	});
	const test = useMutation({
		mutationFn: () => api.testAlertWebhook(projectName),
		onSettled: () => queryClient.invalidateQueries({ queryKey }),
	});
	const current = webhook.data;
	const editing = current === null || changing;
	const feedbackLabel = "Also for new feedback";

	function submit(event: FormEvent) {
		event.preventDefault();
		save.mutate();
	}

	return (
		<section className="card" aria-labelledby="alerts-heading">
			<h2 id="alerts-heading">Alerts</h2>
			<p className="muted">
				Posts to a webhook when an issue opens, regresses or comes back from being ignored, and when feedback arrives. Slack, Discord and
				Mattermost incoming webhooks show its message as is. At most one alert per issue and kind per 30 minutes, {ALERT_LIMITS.perHour} per
				project per hour.
			</p>
			<QueryState query={webhook} loading="Loading alerts…" empty="" isEmpty={() => false} />
			{current !== undefined && editing && (
				<form className="row" onSubmit={submit}>
					<label>
						Webhook URL
						<input
							type="url"
							required
							maxLength={ALERT_LIMITS.urlChars}
							placeholder="https://hooks.slack.com/services/…"
							autoComplete="off"
							value={url}
							onChange={(e) => setUrl(e.target.value)}
						/>
					</label>
					<label className="switch">
						<input type="checkbox" checked={feedback} onChange={(e) => setFeedback(e.target.checked)} />
						{feedbackLabel}
					</label>
					<button type="submit" className="primary" disabled={save.isPending}>
						Save
					</button>
					{current && (
						<button type="button" onClick={() => setChanging(false)}>
							Cancel
						</button>
					)}
				</form>
			)}
			{current && !changing && (
				<div className="row">
					<span>
						Webhook: <code data-testid="alert-webhook-url">{masked(current.url)}</code>
					</span>
					<button
						type="button"
						onClick={() => {
							setFeedback(current.feedback);
							setChanging(true);
						}}
					>
						Change
					</button>
					<button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
						{test.isPending ? "Sending…" : "Send test"}
					</button>
					<button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
						Remove
					</button>
				</div>
			)}
			{current && !changing && (
				<label className="switch">
					<input
						type="checkbox"
						checked={feedbackAsked ?? current.feedback}
						onChange={(e) => {
							setFeedbackAsked(e.target.checked);
							toggleFeedback.mutate({ url: current.url, on: e.target.checked });
						}}
						disabled={toggleFeedback.isPending}
					/>
					{feedbackLabel}
				</label>
			)}
			{current && (
				<p aria-live="polite" className={current.last_delivery && !current.last_delivery.delivered ? "error" : "muted"}>
					{deliveryLine(current.last_delivery)}
					{current.suppressed > 0 && ` ${plural(current.suppressed, "alert")} not sent past the hourly bound.`}
				</p>
			)}
			<ActionError error={save.error ?? remove.error ?? test.error ?? toggleFeedback.error} />
		</section>
	);
}
