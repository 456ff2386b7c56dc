// `npm test` runs on the Node that the `node` devDependency puts first on PATH; say which.
const [major] = process.versions.node.split(".").map(Number);
console.log(`svc tests on Node ${process.version}`);
if (major < 22) {
	console.error("Node 22 or newer is required: run through npm scripts so node_modules/.bin/node is used.");
	process.exit(1);
}
