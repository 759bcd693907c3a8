/** The container layer: bytes in, entries and verified bytes out. No workspace knowledge here. */
export {
  directoryPlace,
  parseCentralRecordBytes,
  readCentralDirectory,
  readPackedDirectory,
} from './central-directory.ts';
export { PackedDirectory } from './packed-directory.ts';
export {
  assertKeyFits,
  assertReadable,
  locateEntryData,
  readEntryData,
  readLocalExtra,
  streamEntryData,
  type EntrySpan,
} from './entry-data.ts';
export { ZipWriter, type CopyNotes } from './writer.ts';
export {
  cipherFacts,
  encryptionOf,
  innerMethodOf,
  METHOD_AES,
  lockedEntry,
  lockedRefusal,
  mayBeLocked,
  anyMayBeLocked,
  stillLocked,
  type EncryptionKind,
} from './encryption.ts';
export {
  codecFor,
  decodeOrUndefined,
  plainlyReadable,
  registerCipher,
  registerCodec,
  sealingCipher,
  storedAsIs,
} from './codec-registry.ts';
export { aesExtraField } from './ciphers/winzip-aes.ts';
export {
  askPassword,
  passwordEnv,
  setPasswordSource,
  withArchive,
  withPasswordSource,
  type PasswordSource,
} from './ciphers/password.ts';
export { isWrongPassword } from './ciphers/zip-crypto.ts';
export type { Codec, EncodeChoice, Encoder, EntryCipher, PieceTransform } from './codec-types.ts';
export { encodeWhole, methodToWrite, startPieceEncoding, type PieceEncoding } from './entry-encode.ts';
export { LayoutError, checkLayout, entryLayoutFault, layoutFaults, openRefusal, packedLayoutFault } from './layout.ts';
export { refreshExtraFields, type EntryFields } from './records.ts';
export { extendedTimestampField, type ExtraField } from './extra-fields.ts';
export { BufferSource, FileSource, type ZipSource } from './source.ts';
export type { CentralDirectory, EntryLocation, ZipEntry } from './types.ts';
export {
  CODE_PAGES,
  codePageStream,
  decodeCodePage,
  encodeCodePage,
  isMultiByte,
  strictCodePageDecoder,
  type CodePage,
  type MultiByteCodePage,
  type Unencodable,
} from './code-pages.ts';
export { legacyNames, surveyNames, type NameSample, type NameSurvey } from './name-survey.ts';
