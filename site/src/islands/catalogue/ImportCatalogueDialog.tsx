import { useId, useRef, useState, type DragEvent } from 'react';
import { Download, FileUp, TriangleAlert } from 'lucide-react';
import { api, type CatalogueImportAnswer, type CatalogueImportResult } from '../../lib/api';
import { looksLikeCsv, MAX_IMPORT_BYTES } from '../../lib/catalogue';
import { cn } from '../../lib/utils';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Spinner } from '../ui/Spinner';
import { plural } from './model';

const TEMPLATE = 'sku,title,price,currency\r\nK-1,Kettle 1.7L Brushed Steel,34.99,GBP\r\n';
const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(TEMPLATE)}`;

type Stage =
  | { kind: 'empty'; problem: string | null }
  | { kind: 'checking'; file: File }
  | { kind: 'checked'; file: File; result: CatalogueImportResult }
  | { kind: 'importing'; file: File; result: CatalogueImportResult };

type Props = { onClose: () => void; onImported: () => void; onCloseAutoFocus: (event: Event) => void };

function summary(answer: CatalogueImportAnswer): string {
  const parts = [
    answer.created && `${plural(answer.created, 'product')} will be added`,
    answer.updated && `${plural(answer.updated, 'product')} updated`,
  ].filter(Boolean);
  const skipped = answer.skipped ? ` ${plural(answer.skipped, 'row')} will be skipped.` : '';
  return parts.length ? `${parts.join(', ')}.${skipped}` : `Nothing to add or update.${skipped}`;
}

/** Import CSV for your own products: checked by a dry run first, which shows the rows and every error by line. */
export function ImportCatalogueDialog({ onClose, onImported, onCloseAutoFocus }: Props) {
  const [stage, setStage] = useState<Stage>({ kind: 'empty', problem: null });
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const pending = stage.kind === 'importing';

  async function choose(file: File | undefined) {
    if (!file) return;
    if (!looksLikeCsv(file)) return setStage({ kind: 'empty', problem: `${file.name} is not a CSV file. Choose a file ending in .csv.` });
    if (file.size > MAX_IMPORT_BYTES) return setStage({ kind: 'empty', problem: `${file.name} is larger than 2 MB. Split it into smaller files.` });
    setStage({ kind: 'checking', file });
    try {
      setStage({ kind: 'checked', file, result: await api.catalogue.importCsv(file, { dryRun: true }) });
    } catch {
      setStage({ kind: 'empty', problem: 'The file could not be checked. Please try again.' });
    }
  }

  async function importFile() {
    if (stage.kind !== 'checked') return;
    setStage({ ...stage, kind: 'importing' });
    try {
      const result = await api.catalogue.importCsv(stage.file, { dryRun: false });
      if (result.ok) {
        const { created, updated } = result.answer;
        toast({ title: 'Import complete', description: `${plural(created, 'product')} added${updated ? `, ${plural(updated, 'product')} updated` : ''}.` });
        onImported();
        return;
      }
      setStage({ kind: 'checked', file: stage.file, result });
    } catch {
      setStage({ kind: 'checked', file: stage.file, result: stage.result });
      toast({ title: 'Import failed', description: 'Please try again.', variant: 'destructive' });
    }
  }

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    if (!pending) void choose(event.dataTransfer.files[0]);
  }

  const result = stage.kind === 'checked' || stage.kind === 'importing' ? stage.result : null;
  const answer = result?.ok ? result.answer : null;
  const count = answer ? answer.created + answer.updated : 0;
  const canImport = stage.kind === 'checked' && count > 0;

  return (
    <Dialog open onOpenChange={(open) => !open && !pending && onClose()}>
      <DialogContent showClose={!pending} onCloseAutoFocus={onCloseAutoFocus} className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Import CSV</DialogTitle>
          <DialogDescription>
            A CSV file of the products you sell, with the columns sku, title, price and currency, and optionally gtin, mpn, brand, cost and url. A SKU imported
            before is updated. Other columns are ignored.
          </DialogDescription>
        </DialogHeader>

        <div
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={drop}
          className={cn(
            'flex flex-col items-center gap-3 rounded-lg border-2 border-dashed p-6 text-center transition-colors',
            dragging ? 'border-primary bg-accent' : 'border-input',
          )}
        >
          <FileUp aria-hidden="true" className="size-8 text-muted-foreground" />
          <p className="text-sm text-muted-foreground">Drag a CSV file here, or</p>
          <label htmlFor={inputId} className="sr-only">
            CSV file
          </label>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            accept=".csv,text/csv"
            className="sr-only"
            disabled={pending}
            onChange={(e) => {
              void choose(e.target.files?.[0]);
              e.target.value = '';
            }}
          />
          <Button variant="outline" onClick={() => inputRef.current?.click()} disabled={pending}>
            Choose file
          </Button>
          {stage.kind !== 'empty' && <p className="break-all text-sm font-medium">{stage.file.name}</p>}
        </div>

        <a
          href={TEMPLATE_HREF}
          download="pricewatch-catalogue-template.csv"
          className="inline-flex w-fit items-center gap-1.5 text-sm font-medium text-primary underline-offset-4 hover:underline"
        >
          <Download aria-hidden="true" className="size-4" />
          Download template
        </a>

        <div aria-live="polite" className="grid gap-3">
          {stage.kind === 'empty' && stage.problem && <Problem message={stage.problem} />}
          {stage.kind === 'checking' && (
            <p className="flex items-center gap-2 text-sm text-muted-foreground">
              <Spinner className="size-4" label="Checking the file" /> Checking the file...
            </p>
          )}
          {result && <Preview result={result} />}
        </div>

        <DialogFooter>
          <Button variant="outline" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button onClick={importFile} disabled={!canImport}>
            {pending && <Spinner className="size-4 text-current" label="Importing..." />}
            {pending ? 'Importing...' : count > 0 ? `Import ${plural(count, 'product')}` : 'Import'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function Problem({ message }: { message: string }) {
  return (
    <p role="alert" className="flex gap-2 rounded-md border border-destructive/50 bg-destructive/10 p-3 text-sm text-foreground">
      <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-destructive" />
      <span>{message}</span>
    </p>
  );
}

function Preview({ result }: { result: CatalogueImportResult }) {
  const rows = result.ok ? ('preview' in result.answer ? result.answer.preview : []) : result.preview;
  return (
    <>
      {rows.length > 0 && (
        <div className="overflow-x-auto rounded-md border" tabIndex={0} role="region" aria-label="First rows of the file">
          <table className="w-full text-left text-sm">
            <thead className="bg-muted/60 text-xs text-muted-foreground">
              <tr>
                {['Line', 'SKU', 'Title', 'Price'].map((h) => (
                  <th key={h} scope="col" className="px-3 py-2 font-medium">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.line} className="border-t">
                  <td className="px-3 py-2 tabular-nums">{row.line}</td>
                  <td className="px-3 py-2">{row.sku}</td>
                  <td className="max-w-56 truncate px-3 py-2" title={row.title}>
                    {row.title}
                  </td>
                  <td className="whitespace-nowrap px-3 py-2 tabular-nums">
                    {row.price} {row.currency}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.ok ? (
        <p className="text-sm font-medium">{summary(result.answer)}</p>
      ) : (
        <div className="grid gap-2">
          <Problem message={result.message} />
          {result.status === 403 && (
            <a href="/billing" className="w-fit text-sm font-medium underline underline-offset-4">
              See plans
            </a>
          )}
          {result.errors.length > 0 && (
            <ul className="max-h-48 list-disc overflow-y-auto pl-5 text-sm" aria-label="Errors in the file">
              {result.errors.map((e, i) => (
                <li key={i} className="break-words">
                  {`Line ${e.line}${e.column ? `, ${e.column}` : ''}: ${e.message}`}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
