/**
 * A JSON object as stored in JSON columns and carried over Durable Object RPC. Its values are
 * typed `any` on purpose: a recursive JSON type makes the RPC stub types too deep to instantiate.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>;
