/**
 * The bin's first step, before the CLI's modules load: a command that starts itself again under the
 * allocator setting does so before it has compiled a few hundred modules it would throw away (that cost
 * a conformance run half a second of CPU, and the self-validation runs the CLI 250 times).
 */
/**
 * The commands that start themselves again under the allocator setting that lets a process give memory
 * back (src/reference/allocator-settings.ts): `serve`, the reference in a process of its own, and
 * `conformance`, which waits on the network and reads what a target sends whole (10 MB answers, 10 MB
 * requests of the limits cases). Not `load` or `run`: the setting costs the load engine CPU.
 */
const allocatorCommands: ReadonlySet<string> = new Set(['serve', 'conformance']);

/**
 * Called by the bin before runCli, never by code that shares its process. The command is always argv's
 * first word.
 */
export async function prepareProcess(argv: readonly string[]): Promise<void> {
  if (
    !allocatorCommands.has(argv[0] ?? '') ||
    argv.includes('--list-faults') ||
    argv.includes('--help') ||
    argv.includes('-h')
  )
    return;
  const { relaunchUnderAllocatorSettings } = await import('../reference/allocator-settings.ts');
  relaunchUnderAllocatorSettings();
}
