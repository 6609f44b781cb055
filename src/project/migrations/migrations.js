import journal from './meta/_journal.json';
import m0000 from './0000_data_plane.sql';
import m0001 from './0001_analysis_staging.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001
    }
  }
  