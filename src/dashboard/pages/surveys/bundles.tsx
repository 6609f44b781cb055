// The bundles list's table (spec 4.7): what the upload client sent, each linked to the survey it started.
import { Time } from '../../components/common';
import { formatCount } from '../../format';
import type { Pagination } from './views';

export interface Bundle { id: string; sha256: string; mime_type: string; comment: string | null; uploaded_at: string; size_bytes: number; survey_id: string }
export interface BundlePage { bundles: Bundle[]; pagination: Pagination }

/** "12.4 MB" */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function BundlesTable(props: { bundles: Bundle[]; projectId: string; timezone: string; total: number }) {
  return (
    <div class="table-box">
      <table>
        <caption>Bundles ({formatCount(props.total)})</caption>
        <thead>
          <tr>
            <th scope="col">Bundle</th><th scope="col">Survey</th><th scope="col">Type</th><th scope="col" class="num">Size</th>
            <th scope="col">SHA-256</th><th scope="col">Uploaded</th><th scope="col">Comment</th>
          </tr>
        </thead>
        <tbody>
          {props.bundles.map((b) => (
            <tr id={`bundle-${b.id}`}>
              <th scope="row"><span class="mono">{b.id}</span></th>
              <td><a href={`/projects/${props.projectId}/surveys/${b.survey_id}`}>Survey {b.survey_id.slice(0, 8)}</a></td>
              <td>{b.mime_type}</td>
              <td class="num">{formatBytes(b.size_bytes)}</td>
              <td><span class="mono">{b.sha256}</span></td>
              <td><Time iso={b.uploaded_at} timezone={props.timezone} /></td>
              <td>{b.comment ? <span class="wrap">{b.comment}</span> : <span class="muted">None</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
