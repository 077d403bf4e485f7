import type ExcelJS from "exceljs";

/** A formula's value: a number, a text, or the cells of a range. */
type Value = number | string | Cell[];
interface Cell {
  sheet: ExcelJS.Worksheet;
  row: number;
  column: number;
}

/**
 * Test helper: recomputes every formula of a workbook as a spreadsheet would on opening it
 * (cell references across sheets, ranges, `SUM`, `SUMIF`, `ROUND`, + - * /; text in
 * arithmetic is `#VALUE!`, as in Excel) and returns, per formula whose recomputed value is
 * not its stored result, `Sheet!A1: formula = computed, stored result`. [] when every
 * figure a reader sees after the recalculation is the one the writer meant.
 */
export function formulaMismatches(book: ExcelJS.Workbook): string[] {
  const memo = new Map<string, number | string>();
  const found: string[] = [];
  for (const sheet of book.worksheets) {
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (!cell.formula) return;
        const at = `${sheet.name}!${cell.address}`;
        let computed: number | string;
        try {
          computed = cellValue({ sheet, row: Number(cell.row), column: Number(cell.col) });
        } catch (error) {
          found.push(`${at}: ${cell.formula} = ${(error as Error).message}, stored ${String(cell.result)}`);
          return;
        }
        const stored = cell.result ?? 0; // exceljs leaves a 0 result out
        if (
          typeof computed !== "number" ||
          typeof stored !== "number" ||
          Math.abs(computed - stored) > 1e-9 * Math.max(1, Math.abs(stored))
        ) {
          found.push(`${at}: ${cell.formula} = ${String(computed)}, stored ${String(stored)}`);
        }
      }),
    );
  }
  return found;

  function cellValue(at: Cell): number | string {
    const key = `${at.sheet.name}!${at.row}:${at.column}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const cell = at.sheet.getCell(at.row, at.column);
    let value: number | string;
    if (cell.formula) value = scalar(evaluate(cell.formula, at.sheet));
    else if (typeof cell.value === "number" || typeof cell.value === "string") value = cell.value;
    else if (cell.value === null || cell.value === undefined) value = "";
    else throw new Error(`#UNSUPPORTED cell ${at.sheet.name}!${cell.address}`);
    memo.set(key, value);
    return value;
  }

  function scalar(value: Value): number | string {
    if (!Array.isArray(value)) return value;
    if (value.length !== 1) throw new Error("#VALUE! (a range where one value is needed)");
    return cellValue(value[0]!);
  }

  function numberOf(value: Value): number {
    const v = scalar(value);
    if (v === "") return 0;
    if (typeof v !== "number") throw new Error(`#VALUE! (text "${v}" in arithmetic)`);
    return v;
  }

  function cellsOf(value: Value): Cell[] {
    if (!Array.isArray(value)) throw new Error("#VALUE! (a range is needed)");
    return value;
  }

  function evaluate(formula: string, home: ExcelJS.Worksheet): Value {
    const pattern =
      /\s*('[^']*'!\$?[A-Z]+\$?\d+|[A-Za-z_]\w*!\$?[A-Z]+\$?\d+|\$?[A-Z]+\$?\d+|[A-Z]+(?=\()|\d+(?:\.\d+)?|"[^"]*"|[-+*/(),:])\s*/y;
    const tokens: string[] = [];
    let read = 0;
    for (let m = pattern.exec(formula); m; m = pattern.exec(formula)) {
      tokens.push(m[1]!);
      read = pattern.lastIndex;
    }
    if (read !== formula.length) throw new Error(`#UNSUPPORTED formula ${formula}`);
    let i = 0;
    const peek = () => tokens[i];
    const take = (expected?: string) => {
      const t = tokens[i++];
      if (expected !== undefined && t !== expected)
        throw new Error(`#PARSE ${formula}: expected ${expected}, got ${t}`);
      return t!;
    };
    const reference = (text: string): Cell => {
      const bang = text.lastIndexOf("!");
      const sheetName = bang < 0 ? undefined : text.slice(0, bang).replace(/^'|'$/g, "");
      const sheet = sheetName === undefined ? home : book.getWorksheet(sheetName);
      if (!sheet) throw new Error(`#REF! (no sheet ${sheetName})`);
      const [, letters, digits] = /\$?([A-Z]+)\$?(\d+)$/.exec(text)!;
      const column = [...letters!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
      return { sheet, row: Number(digits), column };
    };
    const expression = (): Value => {
      let left = term();
      while (peek() === "+" || peek() === "-")
        left = take() === "+" ? numberOf(left) + numberOf(term()) : numberOf(left) - numberOf(term());
      return left;
    };
    const term = (): Value => {
      let left = factor();
      while (peek() === "*" || peek() === "/")
        left = take() === "*" ? numberOf(left) * numberOf(factor()) : numberOf(left) / numberOf(factor());
      return left;
    };
    const factor = (): Value => {
      const t = take();
      if (t === "-") return -numberOf(factor());
      if (t === "(") {
        const v = expression();
        take(")");
        return v;
      }
      if (/^\d/.test(t)) return Number(t);
      if (t.startsWith('"')) return t.slice(1, -1);
      if (peek() === "(" && /^[A-Z]+$/.test(t)) {
        take("(");
        const args: Value[] = [];
        while (peek() !== ")") {
          args.push(expression());
          if (peek() === ",") take(",");
        }
        take(")");
        return call(t, args);
      }
      const from = reference(t);
      if (peek() !== ":") return [from];
      take(":");
      const to = reference(take());
      const cells: Cell[] = [];
      for (let r = from.row; r <= to.row; r++)
        for (let c = from.column; c <= to.column; c++) cells.push({ sheet: from.sheet, row: r, column: c });
      return cells;
    };
    const value = expression();
    if (i !== tokens.length) throw new Error(`#PARSE ${formula}`);
    return value;
  }

  function call(name: string, args: Value[]): number {
    const numbers = (cells: Cell[]) => cells.map(cellValue).filter((v): v is number => typeof v === "number");
    switch (name) {
      case "SUM":
        return args.flatMap((a) => (Array.isArray(a) ? numbers(a) : [numberOf(a)])).reduce((s, v) => s + v, 0);
      case "SUMIF": {
        const [range, criterion, sumRange] = [
          cellsOf(args[0]!),
          String(scalar(args[1]!)).toLowerCase(),
          cellsOf(args[2] ?? args[0]!),
        ];
        return range.reduce((s, c, k) => {
          const v = String(cellValue(c)).toLowerCase() === criterion ? cellValue(sumRange[k]!) : 0;
          return s + (typeof v === "number" ? v : 0);
        }, 0);
      }
      case "ROUND": {
        const [x, places] = [numberOf(args[0]!), numberOf(args[1]!)];
        const scaled = Number((Math.abs(x) * 10 ** places).toPrecision(15)); // Excel rounds its 15 significant digits, halves away from 0
        return (Math.sign(x) * Math.round(scaled)) / 10 ** places;
      }
      default:
        throw new Error(`#NAME? ${name}`);
    }
  }
}
