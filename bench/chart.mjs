// Draws a benchmark result as a PNG: Vega-Lite describes the chart, Vega renders it to SVG
// without a browser, and @napi-rs/canvas (Skia, shipped prebuilt in its npm package) rasterizes
// the SVG with the system's fonts.
import { writeFile } from "node:fs/promises";
import { Canvas, Image } from "@napi-rs/canvas";
import { parse, View } from "vega";
import { compile } from "vega-lite";

const WIDTH = 560;

function bars({ title, values, x, xTitle, format, color, rule, log = false }) {
	const layer = [
		{
			mark: { type: "bar", tooltip: false },
			encoding: {
				y: { field: "label", type: "nominal", sort: null, title: null, axis: { labelLimit: 400 } },
				x: { field: x, type: "quantitative", title: xTitle, scale: log ? { type: "symlog" } : {}, axis: log ? { values: [0, 10, 100, 1_000, 10_000, 100_000] } : { tickCount: 6, labelOverlap: true } },
				...(color
					? { yOffset: { field: color.field, sort: null }, color: { field: color.field, type: "nominal", sort: null, title: color.title } }
					: {}),
			},
		},
		{
			mark: { type: "text", align: "left", dx: 3, fontSize: 10 },
			encoding: {
				y: { field: "label", type: "nominal", sort: null },
				x: { field: x, type: "quantitative" },
				...(color ? { yOffset: { field: color.field, sort: null } } : {}),
				text: { field: x, type: "quantitative", format },
			},
		},
	];
	if (rule) layer.push({ data: { values: [{ at: rule }] }, mark: { type: "rule", color: "#c0392b", strokeDash: [4, 3] }, encoding: { x: { field: "at", type: "quantitative" } } });
	const labels = new Set(values.map((v) => v.label)).size;
	return { title, width: WIDTH, height: labels * (color ? 40 : 18), data: { values }, layer };
}

export async function drawChart(results, pngPath) {
	const { ingestion, read, machine, settings } = results;
	const spec = {
		$schema: "https://vega.github.io/schema/vega-lite/v6.json",
		title: {
			text: "svc benchmark: the app against a trivial Worker on the same workerd",
			subtitle: `${results.startedAt}, ${machine.cpus} cores (shared), ${settings.seconds} s per run, workerd ${machine.workerd}`,
		},
		config: { font: "DejaVu Sans", view: { stroke: null } },
		resolve: { scale: { color: "independent" } },
		vconcat: [
			bars({
				title: "Requests per second as a share of the baseline",
				values: ingestion.map((r) => ({ label: r.title, ratio: r.ratio, connections: `${r.connections} connections` })),
				x: "ratio",
				xTitle: "ratio to the baseline (1 = as fast as a Worker doing nothing)",
				format: ".2~r",
				color: { field: "connections", title: null },
			}),
			bars({
				title: `p99 latency at ${settings.highConnections} connections (dashed: 100 ms)`,
				values: ingestion.filter((r) => r.connections === settings.highConnections).map((r) => ({ label: r.title, p99: r.p99 })),
				x: "p99",
				xTitle: "milliseconds",
				format: ".0f",
				rule: 100,
			}),
			read && bars({
				title: `Owner reads: ${read.seed.events.toLocaleString("en")} analytics events, ${read.seed.issues.toLocaleString("en")} issues`,
				values: read.endpoints.flatMap((r) => [
					{ label: r.title, ms: r.p50, percentile: "p50" },
					{ label: r.title, ms: r.p99, percentile: "p99" },
				]),
				x: "ms",
				xTitle: "milliseconds per request (symmetric log scale)",
				format: ".0f",
				log: true,
				color: { field: "percentile", title: null },
			}),
		].filter(Boolean),
	};
	const view = new View(parse(compile(spec).spec), { renderer: "none" });
	const svg = await view.toSVG(2);
	const image = new Image();
	image.src = Buffer.from(svg);
	const canvas = new Canvas(image.width, image.height);
	const context = canvas.getContext("2d");
	context.fillStyle = "white";
	context.fillRect(0, 0, image.width, image.height);
	context.drawImage(image, 0, 0);
	await writeFile(pngPath, await canvas.encode("png"));
}
