// The simulator's own table (migration 0028): the sound of each sandbox conference, kept
// beside the conferences module's rows and never read by it.
export interface SimConferenceRow {
  /** The conference's id (conf_...). */
  id: string;
  account_id: string;
  /** JSON SimConferenceState (conference-media.ts). */
  state: string;
  updated_at: string;
}

export interface SimulatorTables {
  sim_conferences: SimConferenceRow;
}
