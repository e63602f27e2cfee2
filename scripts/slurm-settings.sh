# The slurm.conf settings that a private test cluster needs whatever its shape, for the scripts
# that start one (slurm/local-cluster.sh: one node; scripts/virtual-cluster.sh: several):
# root daemons, nothing to account, jobs started at once, a node's CPUs as the config says them.
slurm_settings() {  # slurm_settings: the lines, for a slurm.conf
  cat <<'SETTINGS'
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
EnforcePartLimits=ALL
ReturnToService=2
SlurmdParameters=config_overrides
SETTINGS
}
