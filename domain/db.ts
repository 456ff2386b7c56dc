import { drizzle } from "drizzle-orm/d1";
import * as schema from "../schema";

/** Drizzle over the D1 binding; create one per request. */
export const database = (env: Env) => drizzle(env.DB, { schema });
