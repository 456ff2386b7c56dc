/**
 * The line that lets a page call `svc.track` and `svc.identify` before the tracker has loaded (the
 * tag is deferred, so an inline script runs first): the calls wait in `svc.q`, and the tracker
 * makes them once loaded (clients/tracker/README.md). The sites' cards show it; the tracker's tests
 * serve it.
 */
export const TRACKER_QUEUE = `<script>window.svc = window.svc || { q: [], track(...a) { this.q.push(["track", a]) }, identify(...a) { this.q.push(["identify", a]) } };</script>`;
