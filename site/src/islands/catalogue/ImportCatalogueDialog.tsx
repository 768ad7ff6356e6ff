import { api, type CatalogueImportAnswer } from '../../lib/api';
import { CsvImportDialog, type ImportDialogProps } from '../ui/CsvImportDialog';
import { plural } from './model';

const TEMPLATE = 'sku,title,price,currency\r\nK-1,Kettle 1.7L Brushed Steel,34.99,GBP\r\n';
const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(TEMPLATE)}`;

function summary(answer: CatalogueImportAnswer): string {
  const parts = [
    answer.created && `${plural(answer.created, 'product')} will be added`,
    answer.updated && `${plural(answer.updated, 'product')} updated`,
  ].filter(Boolean);
  const skipped = answer.skipped ? ` ${plural(answer.skipped, 'row')} will be skipped.` : '';
  return parts.length ? `${parts.join(', ')}.${skipped}` : `Nothing to add or update.${skipped}`;
}

/** Import CSV for your own products: a SKU imported before is updated, so both new and updated rows count. */
export function ImportCatalogueDialog(props: ImportDialogProps) {
  return (
    <CsvImportDialog
      {...props}
      description="A CSV file of the products you sell, with the columns sku, title, price and currency, and optionally gtin, mpn, brand, cost and url. A SKU imported before is updated. Other columns are ignored."
      send={api.catalogue.importCsv}
      template={{ href: TEMPLATE_HREF, filename: 'pricewatch-catalogue-template.csv' }}
      count={(answer) => answer.created + answer.updated}
      importedToast={({ created, updated }) => ({
        title: 'Import complete',
        description: `${plural(created, 'product')} added${updated ? `, ${plural(updated, 'product')} updated` : ''}.`,
      })}
      columns={['SKU', 'Title', 'Price']}
      cells={(row) => (
        <>
          <td className="px-3 py-2">{row.sku}</td>
          <td className="max-w-56 truncate px-3 py-2" title={row.title}>
            {row.title}
          </td>
          <td className="whitespace-nowrap px-3 py-2 tabular-nums">
            {row.price} {row.currency}
          </td>
        </>
      )}
      summary={(answer) => <p className="text-sm font-medium">{summary(answer)}</p>}
      offerPlans
    />
  );
}
