import { api } from '../../lib/api';
import { importToast, previewSummary, TEMPLATE_FILENAME, TEMPLATE_HREF, type ImportAnswer } from '../../lib/catalogue';
import { CsvImportDialog, type ImportDialogProps } from '../ui/CsvImportDialog';

/** Import CSV of competitor products to track: duplicates are skipped, so only new ones count. */
export function ImportCsvDialog(props: ImportDialogProps) {
  return (
    <CsvImportDialog
      {...props}
      description="Add many products at once from a CSV file with the columns name, url, selector and threshold (none, any or a drop such as -10). Other columns are ignored."
      send={api.products.importCsv}
      template={{ href: TEMPLATE_HREF, filename: TEMPLATE_FILENAME }}
      count={(answer) => answer.created}
      importedToast={importToast}
      columns={['Name', 'URL', 'Threshold']}
      cells={(row) => (
        <>
          <td className="max-w-48 truncate px-3 py-2" title={row.name}>
            {row.name}
          </td>
          <td className="max-w-56 truncate px-3 py-2" title={row.url}>
            {row.url}
          </td>
          <td className="px-3 py-2">{row.threshold || 'none'}</td>
        </>
      )}
      summary={(answer) => <Summary answer={answer} />}
      dropZoneTestId="csv-drop-zone"
    />
  );
}

/** What will be added, and each row that will be skipped and why. */
function Summary({ answer }: { answer: ImportAnswer }) {
  return (
    <div className="grid gap-1 text-sm">
      <p className="font-medium">{previewSummary(answer)}</p>
      {answer.duplicates.length > 0 && (
        <ul className="max-h-32 list-disc overflow-y-auto pl-5 text-muted-foreground" aria-label="Rows to skip">
          {answer.duplicates.map((d) => (
            <li key={d.line} className="break-all">
              Line {d.line}: {d.url} ({d.reason === 'tracked' ? 'already tracked' : 'repeated in the file'})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
