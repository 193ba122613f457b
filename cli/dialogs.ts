// All interactive prompts live here. With no TTY, or CI=true, nothing is asked: a missing answer
// is a usage error that names the flag. @inquirer/prompts loads only when a prompt is shown.
import { UsageError } from './errors.js';

/** Prompts draw on stderr, so that stdout carries only the result (one JSON document with --json). */
const PROMPT_CONTEXT = { output: process.stderr };

export function canPrompt(): boolean {
  return (
    Boolean(process.stdin.isTTY && process.stdout.isTTY) &&
    process.env.CI !== 'true' &&
    process.env.CI !== '1'
  );
}

function requireTty(flag: string, what: string): void {
  if (!canPrompt())
    throw new UsageError(
      `Missing ${flag}: ${what}. (No prompt is shown without a terminal or with CI=true.)`,
    );
}

export async function askText(flag: string, message: string): Promise<string> {
  requireTty(flag, message);
  const { input } = await import('@inquirer/prompts');
  return input({ message, required: true }, PROMPT_CONTEXT);
}

export async function askChoices<T extends string>(
  flag: string,
  message: string,
  choices: readonly T[],
): Promise<T[]> {
  requireTty(flag, message);
  const { checkbox } = await import('@inquirer/prompts');
  return checkbox(
    { message, choices: choices.map((value) => ({ value })), required: true },
    PROMPT_CONTEXT,
  );
}

export async function askChoice<T extends string>(
  flag: string,
  message: string,
  choices: readonly T[],
): Promise<T> {
  requireTty(flag, message);
  const { select } = await import('@inquirer/prompts');
  return select({ message, choices: choices.map((value) => ({ value })) }, PROMPT_CONTEXT);
}

export interface SelectChoice<T extends string> {
  value: T;
  name: string;
  description?: string;
}

/** One choice among labelled values (e.g. templates with their names, agents with their types). */
export async function askSelect<T extends string>(
  flag: string,
  message: string,
  choices: readonly SelectChoice<T>[],
): Promise<T> {
  requireTty(flag, message);
  const { select } = await import('@inquirer/prompts');
  return select({ message, choices: [...choices], pageSize: 12 }, PROMPT_CONTEXT);
}

export async function askConfirm(
  flag: string,
  message: string,
  fallback: boolean,
): Promise<boolean> {
  requireTty(flag, message);
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message, default: fallback }, PROMPT_CONTEXT);
}

/** A text answer with a default the user can accept with Enter. */
export async function askTextWithDefault(
  flag: string,
  message: string,
  fallback: string,
): Promise<string> {
  requireTty(flag, message);
  const { input } = await import('@inquirer/prompts');
  return input({ message, default: fallback, required: true }, PROMPT_CONTEXT);
}

/** A text answer checked as it is typed: `problem` says what is wrong with it, or undefined. */
export async function askValidated(
  flag: string,
  message: string,
  problem: (answer: string) => string | undefined,
): Promise<string> {
  requireTty(flag, message);
  const { input } = await import('@inquirer/prompts');
  const answer = await input(
    { message, required: true, validate: (value) => problem(value) ?? true },
    PROMPT_CONTEXT,
  );
  return answer.trim();
}
