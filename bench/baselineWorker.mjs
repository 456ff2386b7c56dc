// The baseline `npm run bench` divides by: a Worker that does nothing but answer 204, served by
// the same runtime, on the same kind of socket, in the same run as the app.
export default {
	fetch: () => new Response(null, { status: 204 }),
};
