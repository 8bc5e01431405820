"""Asynchronous Level 2's runners: claiming a job, deciding it (write_path/deferred.py), the
nudges that wake a worker after a write commits, and the sweeper that finds jobs whose nudge
was lost. `aurra dev` and `aurra worker` run `worker.Worker`; in AWS the level2_worker function
runs `worker.run_job` per queue message and `worker.sweep` on a schedule."""
