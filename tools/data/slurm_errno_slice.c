/* A slice of SchedMD/slurm 284c3b95f08a2dc2478499837b03355e1b9c5c75 (https://github.com/SchedMD/slurm) src/common/slurm_errno.c, for tests/test_explain_generated.py */
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
