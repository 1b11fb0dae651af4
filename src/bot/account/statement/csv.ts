import { pipeline, Readable } from "node:stream";
import { stringify } from "csv-stringify";

/**
 * Rows as an RFC 4180 CSV byte stream: CRLF line ends, and a field holding a comma, a quote or a line break quoted
 * with its quotes doubled (csv-stringify), in UTF-8 behind a byte-order mark, without which spreadsheet programs
 * read the file in a legacy code page and garble every name outside ASCII. Rows are pulled as the reader (the
 * upload) asks for more, so a long statement is never held whole.
 */
export function csvStream(rows: AsyncIterable<string[]>): Readable {
  const csv = stringify({ bom: true, record_delimiter: "windows" });
  pipeline(Readable.from(rows), csv, () => {
    // A failed read destroys `csv` with its error, which whoever reads the stream (the upload) sees and reports.
  });
  return csv;
}
