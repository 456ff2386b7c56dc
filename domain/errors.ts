/**
 * What domain code throws when input breaks a rule. It knows no HTTP: the Worker's one error
 * catcher answers it as a 400 with this message.
 */
export class InvalidInput extends Error {
	/** The member of the body whose value broke the rule (`user` for `user.id`), when one did. */
	readonly member?: string;

	constructor(message: string, member?: string) {
		super(message);
		this.member = member;
	}
}
