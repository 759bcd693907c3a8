/** The README's table of exit codes, from the error codes themselves (src/base/errors.ts). */
import { ERROR_CODES } from '../../src/base/errors.ts';
import { cell, code, table } from './markdown.ts';

/** The two exits that are not errors: said here, since no error code holds them. */
const NOT_ERRORS = [
  ['0', '', 'Success'],
  [
    '1',
    '',
    'Ran fine, with something to see: changes (`status --exit-code`, `diff --exit-code`), or no match (`grep`)',
  ],
];

export function exitCodeTable(): string {
  const rows = [
    ...NOT_ERRORS,
    ...Object.entries(ERROR_CODES).map(([name, { exit, summary }]) => [String(exit), code(name), cell(summary)]),
  ];
  return table(['exit', 'error', 'meaning'], rows, [0]);
}
