-- Dependent facts: when a memory is superseded, a current memory of the same subject that
-- rested on the value replaced ("User has about 9,000 notes in Evernote" once "User switched
-- from Evernote to Obsidian") is queued for review as a `dependency_proposed` event, never
-- acted on. Like a supersession proposal it is open until a dismissal names it.
ALTER TABLE audit_events DROP CONSTRAINT audit_events_type_check;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_type_check CHECK (type IN (
    'auto_supersede', 'manual_supersede', 'duplicate_rejected', 'revert', 'settings_updated',
    'supersession_proposed', 'proposal_approved', 'proposal_dismissed', 'erasure',
    'auto_supersede_completed', 'dependency_proposed'));
