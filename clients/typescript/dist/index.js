/**
 * treesessions-client: typed calls for every operation of TreeSessions' openapi.yaml, and
 * `TreeRows`, a row cache that follows a view's rows through changes and events.
 */
export * from "./api.js";
export * from "./transport.js";
export * from "./problem.js";
export * from "./sse.js";
export * from "./splices.js";
export * from "./row-store.js";
export * from "./tree-rows.js";
export * from "./adapters.js";
