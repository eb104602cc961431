/**
 * Each command's handler, loaded only when that command runs. Typed against the command table, so a
 * handler whose `run` reads a flag its command lacks, or reads it as the wrong kind, does not compile.
 */
import type { CommandName, CommandValues } from './command-table.ts';

export interface CommandHandler<Name extends CommandName> {
  /** Resolves to the exit code. */
  readonly run: (values: CommandValues<Name>) => Promise<number>;
}

export const commandHandlers: { readonly [Name in CommandName]: () => Promise<CommandHandler<Name>> } = {
  serve: () => import('./commands/serve.ts'),
  conformance: () => import('./commands/conformance.ts'),
  load: () => import('./commands/load.ts'),
  run: () => import('./commands/run.ts'),
  soak: () => import('./commands/soak.ts'),
  regions: () => import('./commands/regions.ts'),
  compare: () => import('./commands/compare.ts'),
  'k6 install': () => import('./commands/k6-install.ts'),
  'k6 merge': () => import('./commands/k6-merge.ts'),
  'k6 manifest': () => import('./commands/k6-manifest.ts'),
  rules: () => import('./commands/rules.ts'),
};

/** Runs `command`'s handler with its values. */
export async function runCommand<Name extends CommandName>(
  command: Name,
  values: CommandValues<Name>,
): Promise<number> {
  const handler = await commandHandlers[command]();
  return handler.run(values);
}
