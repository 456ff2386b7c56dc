import { useEffect, useState } from "react";
import { Link, useParams } from "react-router";
import { api, FEEDBACK_STATUSES, type FeedbackRecord, type FeedbackStatus } from "../api";
import { useAsync } from "../useAsync";

function Attachment({ url, label }: { url: string; label: string }) {
	const [src, setSrc] = useState<string>();
	useEffect(() => {
		let objectUrl: string | undefined;
		api.attachmentUrl(url).then(
			(u) => {
				objectUrl = u;
				setSrc(u);
			},
			() => setSrc(undefined),
		);
		return () => {
			if (objectUrl) URL.revokeObjectURL(objectUrl);
		};
	}, [url]);
	return src ? <img className="thumb" src={src} alt={label} /> : <span className="muted">image…</span>;
}

function FeedbackItem({ item, selected, onSelect, onChanged }: { item: FeedbackRecord; selected: boolean; onSelect: (on: boolean) => void; onChanged: () => void }) {
	const { title, description, ...rest } = item.data as { title?: string; description?: string };
	return (
		<li className="card feedback">
			<div className="row">
				<input type="checkbox" checked={selected} onChange={(e) => onSelect(e.target.checked)} aria-label={`Select ${title ?? item.id}`} />
				<span className={`tag ${item.type}`}>{item.type === "issue" ? "Issue" : "Feature"}</span>
				<strong>{title ?? "(no title)"}</strong>
				<span className="muted">{new Date(item.created_at).toLocaleString()}</span>
				<select
					aria-label="Status"
					value={item.status}
					onChange={(e) => api.setFeedbackStatus([item.id], e.target.value as FeedbackStatus).then(onChanged)}
				>
					{FEEDBACK_STATUSES.map((s) => (
						<option key={s}>{s}</option>
					))}
				</select>
			</div>
			{description && <p className="description">{description}</p>}
			{Object.keys(rest).length > 0 && (
				<dl>
					{Object.entries(rest).map(([k, v]) => (
						<div key={k}>
							<dt>{k}</dt>
							<dd>{String(v)}</dd>
						</div>
					))}
				</dl>
			)}
			{item.attachments.length > 0 && (
				<div className="row">
					{item.attachments.map((a) => (
						<Attachment key={a.id} url={a.url} label={`${a.field} of ${title ?? item.id}`} />
					))}
				</div>
			)}
		</li>
	);
}

export function FeedbackPage() {
	const projectName = useParams().projectName ?? "";
	const [type, setType] = useState<string>("");
	const [status, setStatus] = useState<string>("");
	const [selected, setSelected] = useState<Set<string>>(new Set());
	const list = useAsync(
		() => api.listFeedback(projectName, type || undefined, status || undefined).then((r) => r.feedback),
		[projectName, type, status],
	);
	const ids = [...selected];
	const afterBulk = () => {
		setSelected(new Set());
		list.reload();
	};

	return (
		<section>
			<p>
				<Link to="/">← Projects</Link>
			</p>
			<h1>Feedback · {projectName}</h1>
			<div className="row">
				<select aria-label="Type" value={type} onChange={(e) => setType(e.target.value)}>
					<option value="">All types</option>
					<option value="issue">Issues</option>
					<option value="feature_request">Feature requests</option>
				</select>
				<select aria-label="Status filter" value={status} onChange={(e) => setStatus(e.target.value)}>
					<option value="">Any status</option>
					{FEEDBACK_STATUSES.map((s) => (
						<option key={s}>{s}</option>
					))}
				</select>
				{ids.length > 0 && (
					<>
						<span>{ids.length} selected</span>
						<button type="button" onClick={() => api.setFeedbackStatus(ids, "closed").then(afterBulk)}>
							Close
						</button>
						<button type="button" className="danger" onClick={() => confirm(`Delete ${ids.length} item(s)?`) && api.deleteFeedback(ids).then(afterBulk)}>
							Delete
						</button>
					</>
				)}
			</div>
			{list.loading && !list.data && <p className="muted">Loading feedback…</p>}
			{list.error && <p className="error">{list.error}</p>}
			{list.data?.length === 0 && <p className="muted">No feedback yet for these filters.</p>}
			<ul className="plain">
				{list.data?.map((item) => (
					<FeedbackItem
						key={item.id}
						item={item}
						selected={selected.has(item.id)}
						onSelect={(on) => {
							const next = new Set(selected);
							on ? next.add(item.id) : next.delete(item.id);
							setSelected(next);
						}}
						onChanged={list.reload}
					/>
				))}
			</ul>
		</section>
	);
}
