import type { Sql } from './connection.js';
import { RepositoryError } from './errors.js';
import { toApprover, type ApproverRecord, type ApproverRow } from './records.js';
import {
  approverIdSchema,
  approverUpdateInput,
  listApproversInput,
  newApproverInput,
  type ApproverUpdateInput,
  type ListApproversInput,
  type NewApproverInput,
} from './schemas.js';
import { operation } from './validate.js';

/** Who may approve orders, and with which roles; which team each person's orders are charged to. Approvers are deactivated, never deleted: votes refer to them. */
export interface ApproversRepository {
  /** Adds an active approver. Repeating the same add is a no-op; a different one under the same id is refused. */
  addApprover(input: NewApproverInput): Promise<{ created: boolean; approver: ApproverRecord }>;
  /** Changes the named fields only. */
  updateApprover(input: ApproverUpdateInput): Promise<ApproverRecord>;
  deactivateApprover(id: string): Promise<ApproverRecord>;
  getApprover(id: string): Promise<ApproverRecord | null>;
  /** By id. */
  listApprovers(filter?: ListApproversInput): Promise<ApproverRecord[]>;
}

const sameRoles = (a: string[], b: string[]) => a.length === b.length && a.every((role, i) => role === b[i]);

export function createApproversRepository(sql: Sql): ApproversRepository {
  const notFound = (op: string, id: string) => new RepositoryError('not-found', `${op}: no approver with id ${id}`);

  const update = (op: string, input: ApproverUpdateInput) =>
    operation(op, approverUpdateInput, input, async ({ id, displayName, roles, team, active }) => {
      const [row] = await sql<ApproverRow[]>`
        UPDATE approvers SET display_name = coalesce(${displayName ?? null}, display_name),
               roles = coalesce(${roles ?? null}::text[], roles),
               team = ${team === undefined ? sql`team` : team},
               active = coalesce(${active ?? null}::boolean, active),
               updated_at = now()
        WHERE id = ${id} RETURNING *`;
      if (!row) throw notFound(op, id);
      return toApprover(row);
    });

  return {
    addApprover: (input) =>
      operation('addApprover', newApproverInput, input, async ({ id, displayName, roles, team = null }) => {
        const inserted = await sql<ApproverRow[]>`
          INSERT INTO approvers (id, display_name, roles, team) VALUES (${id}, ${displayName}, ${roles}::text[], ${team})
          ON CONFLICT (id) DO NOTHING RETURNING *`;
        if (inserted.length > 0) return { created: true, approver: toApprover(inserted[0]) };
        const [row] = await sql<ApproverRow[]>`SELECT * FROM approvers WHERE id = ${id}`;
        const existing = toApprover(row);
        const same = existing.displayName === displayName && sameRoles(existing.roles, roles) && existing.team === team;
        if (existing.active && same) {
          return { created: false, approver: existing };
        }
        throw new RepositoryError(
          'conflict',
          `addApprover: approver ${id} already exists` +
            `${existing.active ? '' : ' (inactive)'} with other details; change it with update instead`,
        );
      }),

    updateApprover: (input) => update('updateApprover', input),

    deactivateApprover: (id) => update('deactivateApprover', { id, active: false }),

    getApprover: (id) =>
      operation('getApprover', approverIdSchema, id, async (approverId) => {
        const [row] = await sql<ApproverRow[]>`SELECT * FROM approvers WHERE id = ${approverId}`;
        return row ? toApprover(row) : null;
      }),

    listApprovers: (filter = {}) =>
      operation('listApprovers', listApproversInput, filter, async ({ activeOnly, role }) => {
        const rows = await sql<ApproverRow[]>`
          SELECT * FROM approvers WHERE true
            ${activeOnly ? sql`AND active` : sql``}
            ${role ? sql`AND ${role} = ANY (roles)` : sql``}
          ORDER BY id`;
        return rows.map(toApprover);
      }),
  };
}
