import type { SiteStatsView } from "../api";
import { percent } from "../format";
import { Breakdown } from "./Breakdown";

/** Converted visitors out of all the visitors (the same filters but the event's); 0 without visitors. */
export const conversionRate = (converted: { visitors: number }, all: { visitors: number }) => (all.visitors > 0 ? Math.min(1, converted.visitors / all.visitors) : 0);

/**
 * The dashboard's custom events card: the events sent with svc.track, and the data they carried
 * (a row per event's property value). Picking an event filters to it; picking a property row
 * filters to its event and value together.
 */
export function CustomEventsCard({
	stats,
	conversionBase,
	filtered,
	shownRows,
	pickEvent,
	pickProperty,
	download,
}: {
	stats: SiteStatsView;
	/**
	 * The visitors a conversion rate is out of: the period's under the page's filters, but for a
	 * custom event or property filter, whose visitors are all converted ones (undefined while read).
	 */
	conversionBase: number | undefined;
	/** A filter is applied: an empty list says nothing matches it, not that the site sends none. */
	filtered: boolean;
	shownRows: number;
	pickEvent: (name: string) => void;
	pickProperty: (event: string, property: string, value: string) => void;
	download: (csv: string) => (() => Promise<void>) | undefined;
}) {
	return (
		<Breakdown
			shownRows={shownRows}
			heading="Custom events"
			tabs={[
				{
					title: "Custom events",
					column: "Events",
					extraColumn: "Visitors",
					// Of the period's visitors (under the page's other filters), the share who sent the event: a goal's conversion rate.
					moreColumns: [
						<abbr key="cr" title="Conversion rate: the event's visitors out of all visitors">
							CR
						</abbr>,
					],
					empty: filtered ? "No custom event matches the filters." : "No custom events. Send them with svc.track(name, data).",
					onPick: pickEvent,
					download: download("custom_events"),
					rows: stats.custom_events.map((r) => ({
						key: r.name,
						label: r.name,
						value: r.events,
						extra: r.visitors,
						more: [conversionBase ? percent(conversionRate(r, { visitors: conversionBase })) : "–"],
					})),
				},
				{
					title: "Properties",
					column: "Events",
					picked: stats.filters.property !== undefined || stats.filters.property_not !== undefined,
					empty: filtered ? "No custom event under the filters carried data." : "No custom event carried data.",
					onPick: (key) => {
						const [event, property, value] = key.split("\u0000");
						pickProperty(event, property, value);
					},
					download: download("event_properties"),
					// A row is one event's property value: the property filter alone (property=plan:pro) would
					// also keep the visitors of any other event that carried it, so the event is picked too.
					rows: stats.event_properties.map((r) => ({
						key: `${r.name}\u0000${r.property}\u0000${r.value}`,
						pickText: `${r.name} with ${r.property} = ${r.value}`,
						label: `${r.name} · ${r.property} = ${r.value}`,
						value: r.events,
					})),
				},
			]}
		/>
	);
}
