import { createIngressClient, type IngressClient } from "../../durable/ingress.js";
import { ENDED_STATES } from "../../durable/session-state.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { ingressOption } from "./ingress-option.js";

const POLL_MS = 500;

/**
 * `gantry sessions --ingress URL` lists the durable sessions with their state; with an id it prints the
 * session's stream-json lines so far, and with `--follow` keeps printing them until the session ends.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const ingress = ingressOption(options, "sessions");
  const client = createIngressClient(ingress);
  const [id, ...extra] = args;
  if (extra.length > 0)
    throw new UsageError(`gantry sessions takes at most one session id (got ${args.join(" ")})`);
  if (id === undefined) {
    if (options.follow)
      throw new UsageError("--follow needs a session id: gantry sessions --ingress URL <id> --follow");
    return listSessions(client);
  }
  return printEvents(client, id, options.follow === true);
}

async function listSessions(client: IngressClient): Promise<number> {
  const sessions = await client.list();
  for (const session of sessions)
    process.stdout.write(
      `${[session.id, session.state, session.worker ?? "-", session.repo, JSON.stringify(session.prompt)].join("\t")}\n`,
    );
  if (sessions.length === 0)
    process.stderr.write("gantry: no durable sessions yet (gantry submit starts one)\n");
  return 0;
}

/** Exit codes as `gantry -p`: 0 completed, 1 failed or stopped at the turn limit, 130 cancelled. */
async function printEvents(client: IngressClient, id: string, follow: boolean): Promise<number> {
  let from = 0;
  for (;;) {
    const page = await client.events(id, from);
    for (const line of page.lines) process.stdout.write(`${JSON.stringify(line)}\n`);
    from = page.next;
    const ended = ENDED_STATES.includes(page.state);
    if (ended || !follow) {
      if (!ended) return 0;
      return page.state === "completed" ? 0 : page.state === "cancelled" ? 130 : 1;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
