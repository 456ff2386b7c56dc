import type { ReactNode } from "react";
import { count } from "../format";
import { useAddressChoice } from "../searchParams";
import { DownloadButton } from "./DownloadButton";

export interface BreakdownRow {
	key: string;
	/** What picking the row filters to, in words, when the key does not say it (a key of parts the page takes apart). */
	pickText?: string;
	label: ReactNode;
	/** The figure the row is ranked and drawn by. */
	value: number;
	/** How the figure is written, when not as a count (a duration). */
	valueText?: string;
	/** A second figure shown beside the first (page views beside visitors); text is shown as it is. */
	extra?: number | string;
	/** Further figures, as written, one for each of the tab's `moreColumns`. */
	more?: string[];
}

export interface BreakdownTab {
	title: string;
	column: string;
	extraColumn?: string;
	/** Headers of further columns after `extraColumn` (a rate worked out from the row's figures). */
	moreColumns?: ReactNode[];
	rows: BreakdownRow[];
	/** Clicking a row filters the page to it. */
	onPick?: (key: string) => void;
	empty: string;
	/** Downloads the whole list as CSV. */
	download?: () => Promise<void>;
	/** The page is filtered to one of this tab's rows: the card opens on it (a reload or a shared link shows the list the filter was picked from). */
	picked?: boolean;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** The query parameter that holds which tab a card of several shows (`pages_tab=entry-pages`), so a reload or a shared link opens the same list. */
export const tabParam = (heading: string) => `${slug(heading).replace(/-/g, "_")}_tab`;

/**
 * A card of one or more ranked lists (tabs), each row with a bar in proportion to its figure.
 * `shownRows`: at most this many rows are shown, and a list that holds more (its page asked for
 * one more) says so.
 */
export function Breakdown({ heading, tabs, shownRows }: { heading: string; tabs: BreakdownTab[]; shownRows?: number }) {
	const [chosen, choose] = useAddressChoice(tabParam(heading));
	const named = tabs.findIndex((t) => slug(t.title) === chosen);
	// The tab the address names, else the one the page is filtered by, else the first.
	const shown = named >= 0 ? named : Math.max(0, tabs.findIndex((t) => t.picked));
	const tab = tabs[shown];
	const rows = shownRows === undefined ? tab.rows : tab.rows.slice(0, shownRows);
	const more = rows.length < tab.rows.length;
	const top = Math.max(1, ...rows.map((r) => r.value));
	return (
		<section className="card" aria-label={heading}>
			<div className="row spread">
				<h2>{tabs.length === 1 ? tab.title : heading}</h2>
				{tabs.length > 1 && (
					<div className="tabs">
						{tabs.map((t, i) => (
							<button key={t.title} type="button" className="chip" aria-pressed={i === shown} onClick={() => choose(slug(t.title))}>
								{t.title}
							</button>
						))}
					</div>
				)}
			</div>
			{tab.rows.length === 0 ? (
				<p className="muted">{tab.empty}</p>
			) : (
				<table className={tab.moreColumns?.length ? "breakdown more" : "breakdown"}>
					<thead>
						<tr>
							<th>{tabs.length > 1 ? tab.title : ""}</th>
							<th className="num">{tab.column}</th>
							{tab.extraColumn && <th className="num">{tab.extraColumn}</th>}
							{tab.moreColumns?.map((column, i) => (
								// biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the tab
								<th key={i} className="num">
									{column}
								</th>
							))}
						</tr>
					</thead>
					<tbody>
						{rows.map((row) => (
							<tr key={row.key}>
								<td className="bar-cell">
									<span className="bar" style={{ width: `${(row.value / top) * 100}%` }} />
									{tab.onPick ? (
										<button type="button" className="link" onClick={() => tab.onPick?.(row.key)} title={`Filter to ${row.pickText ?? row.key}`}>
											{row.label}
										</button>
									) : (
										<span>{row.label}</span>
									)}
								</td>
								<td className="num">{row.valueText ?? count(row.value)}</td>
								{tab.extraColumn && <td className="num">{typeof row.extra === "string" ? row.extra : count(row.extra ?? 0)}</td>}
								{tab.moreColumns?.map((_, i) => (
									// biome-ignore lint/suspicious/noArrayIndexKey: one cell per column of the tab
									<td key={i} className="num">
										{row.more?.[i] ?? "–"}
									</td>
								))}
							</tr>
						))}
					</tbody>
				</table>
			)}
			{more && (
				<p className="muted small">
					The top {rows.length} of more{tab.download ? "; the CSV holds every one" : ""}.
				</p>
			)}
			{/* Named by its card too when the card has tabs: the Campaigns card's Source is not the Sources card's. */}
			{tab.download && tab.rows.length > 0 && <DownloadButton what={tabs.length === 1 ? tab.title : `${tab.title} in ${heading}`} download={tab.download} />}
		</section>
	);
}
