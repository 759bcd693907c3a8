/**
 * The warning open and inspect give on entry names in a legacy encoding
 * (zip/name-survey.ts): names are never changed on a guess; the warning says
 * how they read now, the encoding they most likely are in, and how to ask for
 * it. With an encoding asked for, only names that are not valid in it are
 * said (they are read as without one).
 */
import { param } from '../base/message-marks.ts';
import { quoted } from '../format/quote-name.ts';
import { encodingLabel } from '../files/text-encoding.ts';
import { CENTRAL_HEADER_LENGTH, FLAG_UTF8 } from '../zip/constants.ts';
import {
  decodeCodePage,
  legacyNames,
  surveyNames,
  type CodePage,
  type NameSample,
  type PackedDirectory,
} from '../zip/index.ts';

/**
 * The warning on the names of `samples` (entries, read with `chosen` when given), or undefined when there is none;
 * `opened`: said by open, whose session must be closed to read the names anew.
 */
export function nameWarning(
  samples: Iterable<NameSample>,
  chosen: CodePage | undefined,
  opened = false,
): string | undefined {
  const names = legacyNames(samples);
  if (chosen !== undefined) {
    const invalid = names.filter((name) => decodeCodePage(name, chosen) === undefined).length;
    if (invalid === 0) return undefined;
    return (
      `${invalid} entry ${invalid === 1 ? 'name is' : 'names are'} not valid ${encodingLabel(chosen)}: read as UTF-8 ` +
      `where valid, else as CP437 (is ${param('name_encoding', chosen)} their encoding?)`
    );
  }
  const survey = surveyNames(names);
  if (!survey || (survey.notUtf8 === 0 && survey.likely === 'utf-8')) return undefined;
  const { legacy, notUtf8, likely, example } = survey;
  const how = notUtf8 === legacy ? 'as CP437, the zip default' : notUtf8 === 0 ? 'as UTF-8' : 'as UTF-8 or CP437';
  const these = `${legacy} entry ${legacy === 1 ? 'name has' : 'names have'} no UTF-8 flag and ${
    notUtf8 === 0 ? 'read' : 'were read'
  } ${how} (${quoted(example.now)})`;
  const again = opened ? 'close this session and open again' : 'open';
  if (likely === 'cp437')
    return `${these}, which looks right; if not, ${again} with ${param('name_encoding', 'cp866')} or another encoding`;
  return (
    `${these}, but they read best as ${encodingLabel(likely)} (${quoted(example.likely)}): names are not changed ` +
    `on a guess; to read them so, ${again} with ${param('name_encoding', likely)}`
  );
}

/**
 * The entries of a packed directory a name encoding may change, as samples: a flagged or ASCII name is skipped from
 * its record's bytes, without parsing it.
 */
export function* packedSamples(directory: PackedDirectory): Generator<NameSample> {
  const region = directory.region;
  const view = new DataView(region.buffer, region.byteOffset, region.byteLength);
  for (let i = 0; i < directory.count; i++) {
    const record = directory.recordStart(i);
    if ((view.getUint16(record + 8, true) & FLAG_UTF8) !== 0) continue;
    const start = record + CENTRAL_HEADER_LENGTH;
    const end = start + view.getUint16(record + 28, true);
    // Four bytes at a time: this runs over every name of a lazy open (30 ms a million names byte by byte).
    let high = 0;
    let at = start;
    for (; at + 4 <= end; at += 4) high |= view.getUint32(at) & 0x80808080;
    for (; at < end; at++) high |= region[at]! & 0x80;
    if (high !== 0) yield directory.entry(i);
  }
}
