import journal from './meta/_journal.json';
import m0000 from './0000_data_plane.sql';
import m0001 from './0001_analysis_staging.sql';
import m0002 from './0002_job_updated_at.sql';
import m0003 from './0003_contents_by_survey.sql';
import m0004 from './0004_reports.sql';
import m0005 from './0005_documents.sql';
import m0006 from './0006_portfolios.sql';
import m0007 from './0007_scoring_again.sql';
import m0008 from './0008_portfolio_snapshots.sql';
import m0009 from './0009_report_search_terms.sql';
import m0010 from './0010_fix_parts.sql';
import m0011 from './0011_bundles_sha256.sql';
import m0012 from './0012_content_layers.sql';
import m0013 from './0013_report_findings_digest.sql';
import m0014 from './0014_decisions.sql';
import m0015 from './0015_notifications.sql';
import m0016 from './0016_scoring_run.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005,
m0006,
m0007,
m0008,
m0009,
m0010,
m0011,
m0012,
m0013,
m0014,
m0015,
m0016
    }
  }
  