/* A slice of SchedMD/slurm 284c3b95f08a2dc2478499837b03355e1b9c5c75 (https://github.com/SchedMD/slurm) src/common/slurm_errno.c (then excerpts of src/slurmctld/job_mgr.c and src/api/allocate.c), for tests/test_explain_generated.py */
	{
		ERRTAB_ENTRY(ESLURM_INVALID_PARTITION_NAME),
		"Invalid partition name specified",
	},
--
	{
		ERRTAB_ENTRY(ESLURM_USER_ID_MISSING),
		"Invalid user id",
	},
--
	{
		ERRTAB_ENTRY(ESLURM_INVALID_GRES),
		"Invalid generic resource (gres) specification",
	},
--
	{
		ERRTAB_ENTRY(ESLURMD_PROLOG_FAILED),
		"Job prolog failed",
	},
--
	{
		ERRTAB_ENTRY(ESLURM_INVALID_ACCOUNT),
		"Invalid account or account/partition combination specified",
	},
--
	{
		ERRTAB_ENTRY(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE),
		"Requested node configuration is not available",
	},
--
	{
		ERRTAB_ENTRY(SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT),
		"Zero Bytes were transmitted or received",
	},
--
	{
		ERRTAB_ENTRY(ESLURM_INVALID_QOS),
		"Invalid qos specification",
	},
	{
		ERRTAB_ENTRY(ESLURM_PARTITION_DOWN),
		"Partition in DOWN state",
	},

/* src/slurmctld/job_mgr.c, job_allocate() (lines 4434-4482 at that commit) */
	if ((error_code == ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE) &&
	    (slurm_conf.enforce_part_limits != PARTITION_ENFORCE_NONE))
		;	/* Reject job submission */
	else if ((error_code == ESLURM_NODES_BUSY) ||
		 (error_code == ESLURM_RESERVATION_BUSY) ||
		 (error_code == ESLURM_JOB_HELD) ||
		 (error_code == ESLURM_NODE_NOT_AVAIL) ||
		 (error_code == ESLURM_QOS_THRES) ||
		 (error_code == ESLURM_ACCOUNTING_POLICY) ||
		 (error_code == ESLURM_RESERVATION_NOT_USABLE) ||
		 (error_code == ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE) ||
		 (error_code == ESLURM_BURST_BUFFER_WAIT) ||
		 (error_code == ESLURM_PARTITION_DOWN) ||
		 (error_code == ESLURM_LICENSES_UNAVAILABLE) ||
		 (error_code == ESLURM_PORTS_BUSY) ||
		 ((error_code == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE) &&
		  (job_ptr->state_reason == FAIL_CONSTRAINTS)) ||
		 IS_TOPO_ERROR(error_code)) {
		/*
		 * Non-fatal error, but job can't be scheduled right now.
		 *
		 * Note: Keep list in sync with nonfatal_errors[] in
		 * openapi/slurmctld.
		 */
		if (immediate) {
			job_state_set(job_ptr, JOB_FAILED);
			job_ptr->exit_code  = 1;
			job_ptr->state_reason = FAIL_BAD_CONSTRAINTS;
			xfree(job_ptr->state_desc);
			job_ptr->start_time = job_ptr->end_time = now;
			job_completion_logger(job_ptr, false);
			debug2("%s: setting %pJ to \"%s\" because it cannot be immediately allocated (%s)",
			       __func__, job_ptr,
			       job_state_reason_string(job_ptr->state_reason),
			       slurm_strerror(error_code));
		} else {	/* job remains queued */
			if ((error_code == ESLURM_NODES_BUSY) ||
			    (error_code == ESLURM_BURST_BUFFER_WAIT) ||
			    (error_code == ESLURM_RESERVATION_BUSY) ||
			    (error_code == ESLURM_ACCOUNTING_POLICY) ||
			    (error_code == ESLURM_PORTS_BUSY) ||
			    ((error_code == ESLURM_PARTITION_DOWN) &&
			     (job_ptr->batch_flag))) {
				error_code = SLURM_SUCCESS;
			}
		}
		return error_code;
	}


/* src/api/allocate.c, slurm_allocate_resources_blocking() (lines 248-253 at that commit) */
			errno = SLURM_SUCCESS;
		} else if (!req->immediate) {
			slurm_step_id_t step_id = resp->step_id;
			if (resp->error_code != SLURM_SUCCESS)
				info("%s", slurm_strerror(resp->error_code));
			/* no, we need to wait for a response */
