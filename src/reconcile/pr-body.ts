// The PR body: rendered from templates/pr/body.md, explaining every change and every held-back
// change (G4), and carrying a hidden metadata marker kerf reads back on the next run.
import { readFile } from 'node:fs/promises';
import type { Change, Decision } from '../model/types.js';
import { parseQuantity, percentChange } from '../rules/quantity.js';
import { describeChanges } from '../plan/plan-table.js';
import { targetName, type PrGroup } from '../plan/groups.js';
import { compileTemplate } from './template.js';
import { embeddedTemplate } from '../embedded-templates.js';
import { code, codeCell, literalCell } from './markdown.js';
import { heldReasonMarkdown, readmeLink, reasonWords } from '../plan/reason-text.js';
import { reviewView, type ReviewContext, type ReviewView } from './pr-review.js';
import type { WindowStatus } from '../github/github.js';
import { describeNextWindow } from '../plan/window-text.js';

/** Where the body template lives; `lib/reconcile/` and `src/reconcile/` both sit two levels below the package. */
export const DEFAULT_BODY_TEMPLATE = new URL('../../templates/pr/body.md', import.meta.url);

export type RenderBody = (view: BodyView) => string;

export async function loadBodyTemplate(path?: URL | string): Promise<RenderBody> {
  const embedded = path === undefined ? embeddedTemplate('pr/body.md') : undefined;
  if (embedded !== undefined) return compileTemplate(embedded, 'templates/pr/body.md');
  const source = path ?? DEFAULT_BODY_TEMPLATE;
  const text = await readFile(source, 'utf8');
  return compileTemplate(text, String(source));
}

/** What kerf reads back from an open PR. */
export interface PullRequestMeta {
  changeSet: string;
  targets: string[];
  /**
   * The last `kerf/window` status kerf wrote and the head it wrote it on: while both still hold,
   * a run needs no request to know the status is current.
   */
  head?: string;
  window?: WindowStatus;
  /** kerf said on the PR that it stopped updating it (said once; a body kerf renders again drops it). */
  stopped?: true;
  /** kerf closed the PR itself; a closed PR without it was closed by a person, a decision kerf keeps. */
  closedBy?: 'kerf';
}

const STATES: readonly unknown[] = ['success', 'pending', 'failure'];

function isWindowStatus(value: unknown): value is WindowStatus {
  const status = value as Partial<WindowStatus> | null;
  return typeof status === 'object' && status !== null && STATES.includes(status.state) && typeof status.description === 'string';
}

const META = /<!-- kerf:meta (\{.*?\}) -->/;

/** A hidden HTML comment; `>` is escaped inside the JSON so nothing in it can end the comment. */
export function metaMarker(meta: PullRequestMeta): string {
  return `<!-- kerf:meta ${JSON.stringify(meta).replace(/>/g, '\\u003e')} -->`;
}

/** The body with its marker replaced (the rest, human edits included, kept as it is). */
export function withMeta(body: string, meta: PullRequestMeta): string {
  return META.test(body) ? body.replace(META, () => metaMarker(meta)) : `${body}\n\n${metaMarker(meta)}`;
}

/** The marker in a body, or null when the body has none (not kerf's, or edited away). */
export function readMeta(body: string | null | undefined): PullRequestMeta | null {
  const match = META.exec(body ?? '');
  if (!match?.[1]) return null;
  try {
    const value = JSON.parse(match[1]) as Partial<PullRequestMeta>;
    if (typeof value.changeSet !== 'string' || !Array.isArray(value.targets) || !value.targets.every((t) => typeof t === 'string')) return null;
    return {
      changeSet: value.changeSet,
      targets: value.targets,
      ...(typeof value.head === 'string' && { head: value.head }),
      ...(isWindowStatus(value.window) && { window: { state: value.window.state, description: value.window.description } }),
      ...(value.stopped === true && { stopped: true as const }),
      ...(value.closedBy === 'kerf' && { closedBy: 'kerf' as const }),
    };
  } catch {
    return null;
  }
}

/** `-50%`, `+12.5%`; `new` for a value that was not set or was zero, `removed` for a removed limit. */
export function formatPercent(change: Pick<Change, 'from' | 'to'>): string {
  if (change.to === null) return 'removed';
  if (change.from === null) return 'new';
  const percent = percentChange(parseQuantity(change.from), parseQuantity(change.to));
  if (percent === null) return 'new';
  return `${percent > 0 ? '+' : ''}${percent}%`;
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

function strategyWhy(decision: Decision): string | null {
  if (decision.reason && decision.strategy !== decision.configuredStrategy) return `${capitalized(reasonWords(decision.reason))} ([why](${readmeLink('reasons')}))`;
  if (decision.strategy === 'deferred') {
    const next = describeNextWindow(decision);
    return next ? `Deferred: the merge waits for the maintenance window ${next}` : 'Deferred: a maintenance window is open';
  }
  return null;
}

/** Every value from Git or the cluster comes Markdown-ready, escaped for where the template puts it (`markdown.ts`). */
export interface BodyView {
  subject: string;
  changes: { workload: string; container: string; field: string; from: string; to: string; percent: string }[];
  strategies: { workload: string; strategy: string; configured: string | null; why: string | null }[];
  status: WindowStatus;
  nextWindow: string | null;
  heldBack: { workload: string; changes: string; reason: string }[];
  /** Why, how much, risks, restarts, new files and merge advice; null when the caller has no context for them. */
  review: ReviewView | null;
  meta: string;
}

/** The view of the template for a group: every field a template may use. */
export function bodyView(group: PrGroup, status: WindowStatus, meta: PullRequestMeta, context?: ReviewContext): BodyView {
  const [only] = group.proposed;
  const [nextDeferred] = group.proposed.filter((d) => d.nextWindow !== null).sort((a, b) => (a.nextWindow ?? '').localeCompare(b.nextWindow ?? ''));
  return {
    subject: only && group.proposed.length === 1 ? code(targetName(only.target)) : `${group.proposed.length} workloads`,
    changes: group.proposed.flatMap((decision) =>
      decision.changes.map((change) => ({
        workload: codeCell(targetName(decision.target)),
        container: codeCell(change.container),
        field: codeCell(change.field),
        from: literalCell(change.from ?? '(none)'),
        to: literalCell(change.to ?? '(removed)'),
        percent: formatPercent(change),
      })),
    ),
    strategies: group.proposed.map((decision) => ({
      workload: code(targetName(decision.target)),
      strategy: decision.strategy ?? '-',
      configured: decision.configuredStrategy !== decision.strategy ? decision.configuredStrategy : null,
      why: strategyWhy(decision),
    })),
    status,
    nextWindow: nextDeferred ? describeNextWindow(nextDeferred) : null,
    heldBack: group.heldBack.map((decision) => ({
      workload: codeCell(targetName(decision.target)),
      changes: literalCell(describeChanges(decision.changes)),
      reason: heldReasonMarkdown(decision) ?? 'held back',
    })),
    review: context ? reviewView(group.proposed, context) : null,
    meta: metaMarker(meta),
  };
}
