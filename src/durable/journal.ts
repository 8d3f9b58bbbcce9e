/**
 * The one journal operation the durable adapter needs. A Restate context gives it (services.ts); a
 * replay returns the recorded value without running the action again.
 */
export interface Journal {
  /** Runs `action` once and records its JSON result under `name`; on replay returns the record. */
  step<T>(name: string, action: () => Promise<T>): Promise<T>;
}
