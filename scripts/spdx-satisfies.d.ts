declare module "spdx-satisfies" {
	/**
	 * Whether `expression` (an SPDX licence expression) is met by licences in `approved` (single
	 * identifiers, no AND/OR). Throws when `expression` is not a valid SPDX expression.
	 */
	export default function satisfies(expression: string, approved: string[]): boolean;
}
