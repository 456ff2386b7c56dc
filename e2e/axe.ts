import axeCore from "axe-core";
import type { Page } from "playwright-core";

const AXE_SOURCE = axeCore.source;

/** Serious and critical accessibility violations on the page as it is now. */
export async function axeViolations(target: Page): Promise<string[]> {
	if (!(await target.evaluate(() => "axe" in window))) await target.addScriptTag({ content: AXE_SOURCE });
	const violations = await target.evaluate(async () => {
		const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
		return result.violations as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
	});
	return violations
		.filter((v) => v.impact === "serious" || v.impact === "critical")
		.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
