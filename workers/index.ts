export default { fetch() { return new Response("ok") } }; export class RateLimiter {}
