import type { SlackBolt } from "../../context.ts";
import { onCommand } from "../on.ts";
import { sbCommand } from "./sb.ts";

export function register(app: SlackBolt): void {
  // Any command name: a workspace may rename /sb in its manifest.
  onCommand(app, /.*/, sbCommand);
}
