/** Members known to be in a table (affected users...), held up to this many, then forgotten all at once. */
const KNOWN_HELD = 10_000;

/**
 * What memory knows a table holds, so a member seen again costs no read: at most KNOWN_HELD of
 * them, forgotten all at once when one more comes (the table still has them; a read finds them).
 */
export class KnownMembers extends Set<string> {
	override add(member: string): this {
		if (this.size >= KNOWN_HELD && !this.has(member)) this.clear();
		return super.add(member);
	}
}
