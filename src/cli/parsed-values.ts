/** What parse-argv hands a command's handler: option name → value (an array for repeatable options). */
export type ParsedValue = string | boolean | number | string[] | number[] | undefined;
export type ParsedValues = Readonly<Record<string, ParsedValue>>;
