/**
 * Every rule of every conformance/rules/*-rules.ts, found by reading the folder (never a hand-kept
 * list) and importing each file; a file contributes every exported array of rules.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createRuleCatalog,
  type Dimension,
  type DimensionCatalog,
  type Rule,
  type RuleCatalog,
  type RuleDimensions,
  type SilentPlace,
} from '../../results/rule.ts';
import { sourceFile } from '../../shared/source-files.ts';
import { rulesDir } from './repo-paths.ts';

function isRule(value: unknown): value is Rule {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return ['id', 'area', 'level', 'section', 'text'].every((field) => typeof rule[field] === 'string');
}

let cached: Promise<RuleCatalog> | undefined;

/** Loads the catalog once per process. */
export function loadRuleCatalog(): Promise<RuleCatalog> {
  cached ??= readCatalog();
  return cached;
}

async function readCatalog(): Promise<RuleCatalog> {
  const names = (await readdir(rulesDir)).filter((name) => name.endsWith(sourceFile('-rules'))).sort();
  const rules: Rule[] = [];
  for (const name of names) {
    const module = (await import(pathToFileURL(join(rulesDir, name)).href)) as Record<string, unknown>;
    for (const exported of Object.values(module)) {
      if (Array.isArray(exported) && exported.length > 0 && exported.every(isRule)) rules.push(...exported);
    }
  }
  return createRuleCatalog(
    rules,
    names.map((name) => `conformance/rules/${name}`),
  );
}

function isDimension(value: unknown): value is Dimension {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return typeof item.id === 'string' && typeof item.title === 'string' && Array.isArray(item.values);
}

function isRuleDimensions(value: unknown): value is RuleDimensions {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return typeof item.rule === 'string' && Array.isArray(item.grids);
}

let cachedDimensions: Promise<DimensionCatalog> | undefined;

/**
 * The dimension vocabulary (conformance/rules/dimensions.ts) and every `*-dimensions.ts` of the same
 * folder, each contributing its exported arrays of rule grids; loaded once per process.
 */
export function loadDimensionCatalog(): Promise<DimensionCatalog> {
  cachedDimensions ??= readDimensions();
  return cachedDimensions;
}

async function readDimensions(): Promise<DimensionCatalog> {
  const names = (await readdir(rulesDir)).filter((name) => name.endsWith(sourceFile('dimensions'))).sort();
  const dimensions: Dimension[] = [];
  const rules: RuleDimensions[] = [];
  for (const name of names) {
    const module = (await import(pathToFileURL(join(rulesDir, name)).href)) as Record<string, unknown>;
    for (const exported of Object.values(module)) {
      if (!Array.isArray(exported) || exported.length === 0) continue;
      if (exported.every(isDimension)) dimensions.push(...exported);
      else if (exported.every(isRuleDimensions)) rules.push(...exported);
    }
  }
  return { dimensions, rules, files: names.map((name) => `conformance/rules/${name}`) };
}

function isSilentPlace(value: unknown): value is SilentPlace {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return ['id', 'area', 'text'].every((field) => typeof item[field] === 'string');
}

/** The places where the spec is silent beyond the observed rules: conformance/rules/silences.ts's exported arrays. */
export async function loadSilentPlaces(): Promise<SilentPlace[]> {
  const module = (await import(pathToFileURL(join(rulesDir, sourceFile('silences'))).href)) as Record<string, unknown>;
  return Object.values(module).flatMap((exported) =>
    Array.isArray(exported) && exported.every(isSilentPlace) ? exported : [],
  );
}
