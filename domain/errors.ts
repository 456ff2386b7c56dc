/**
 * What domain code throws when input breaks a rule. It knows no HTTP: the Worker's one error
 * catcher answers it as a 400 with this message.
 */
export class InvalidInput extends Error {
	/** The member of the body whose value broke the rule (`user` for `user.id`) and the rule's words for it, when one did. */
	readonly field?: { member: string; problem: string };

	constructor(message: string, field?: { member: string; problem: string }) {
		super(message);
		this.field = field;
	}
}
