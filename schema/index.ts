export * from "./accounts";
export * from "./keys";
export * from "./feedback";
export * from "./logs";
export * from "./analytics";
export * from "./sourcemaps";
