/**
 * What domain code throws when input breaks a rule. It knows no HTTP: the Worker's one error
 * catcher answers it as a 400 with this message.
 */
export class InvalidInput extends Error {}
