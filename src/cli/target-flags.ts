/**
 * `--target` and the SVC_* environment into the target a command uses, the same way for every command:
 * a file wins over the environment (and the run says so on stderr), the environment wins over the
 * embedded reference (and the run names the target it read from it).
 */
import { chooseTargets, type TargetChoice } from '../target/load-target.ts';
import { describeTarget, type Target } from '../target/target.ts';
import type { ParsedValues } from './parsed-values.ts';

/** `kv http://…, messaging http://…`: the URLs only (describeTarget leaves secrets out). */
export function targetUrls(target: Target): string {
  const described = describeTarget(target);
  return (['messaging', 'kv', 'management'] as const)
    .flatMap((area) => {
      const entry = described[area] as { url?: string } | undefined;
      return entry?.url === undefined ? [] : [`${area} ${entry.url}`];
    })
    .join(', ');
}

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
  if (choice.environment !== undefined) {
    write(
      `${command}: target ${choice.environment.name} from the environment (SVC_*): ${targetUrls(choice.environment)}`,
    );
  }
  return choice;
}
