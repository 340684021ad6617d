package dev.ferry.shuffle.transport.rdma.verbs;

/**
 * Work completion status. The order is {@code enum ibv_wc_status}, so a raw status is its
 * ordinal, as it is for DiSNI's {@code IbvWC.IbvWcStatus}.
 */
public enum CompletionStatus
{
    SUCCESS,
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    LOC_PROT_ERR,
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    REM_INV_REQ_ERR,
    REM_ACCESS_ERR,
    REM_OP_ERR,
    RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR;

    private static final CompletionStatus[] VALUES = values();

    /** The status for a raw {@code ibv_wc_status}; an unknown value maps to {@link #GENERAL_ERR}, never to success. */
    public static CompletionStatus fromRaw(int raw)
    {
        return raw >= 0 && raw < VALUES.length ? VALUES[raw] : GENERAL_ERR;
    }
}
