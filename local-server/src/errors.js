// One error shape for every answer: {"error": "<message>"} with a status.
export class HttpError extends Error {
	/**
	 * @param {number} status
	 * @param {string} message
	 * @param {Record<string, string>} [headers]
	 */
	constructor(status, message, headers) {
		super(message);
		this.status = status;
		this.headers = headers ?? {};
	}
}
