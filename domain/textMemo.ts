/**
 * `compute` remembered by its text argument, for pure functions of a request header that real
 * traffic repeats (User-Agents): at most `entries` answers, the oldest out first, and only for
 * texts up to `maxChars` characters, so the memory it takes is bounded. Answers are shared between
 * callers: they must be immutable.
 */
export function memoizeByText<T>(compute: (text: string) => T, { entries, maxChars }: { entries: number; maxChars: number }): (text: string) => T {
	const answers = new Map<string, T>();
	return (text) => {
		if (answers.has(text)) return answers.get(text) as T;
		const answer = compute(text);
		if (text.length <= maxChars) {
			if (answers.size >= entries) answers.delete(answers.keys().next().value as string);
			answers.set(text, answer);
		}
		return answer;
	};
}
