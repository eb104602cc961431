/**
 * `--target` and the SVC_* environment into the target a command uses, the same way for every command:
 * a file wins over the environment (and the run says so on stderr), the environment wins over the
 * embedded reference (the engine names the target it read from it, once its checks passed).
 */
import { chooseTargets, type TargetChoice } from '../target/read-target.ts';
import type { ParsedValues } from './parsed-values.ts';

export function targetChoice(
  command: string,
  values: ParsedValues,
  env: Readonly<Record<string, string | undefined>> = process.env,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): TargetChoice {
  const given = values.target;
  const files = Array.isArray(given) ? given.map(String) : typeof given === 'string' ? [given] : [];
  const choice = chooseTargets(command, files, env);
  if (choice.notice !== undefined) write(choice.notice);
  return choice;
}

/** Where a run's lines go: stderr, beside the progress. */
export const logLine = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
