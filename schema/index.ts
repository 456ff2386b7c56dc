export * from "./accounts";
export * from "./keys";
export * from "./feedback";
export * from "./analytics";
