namespace OpenEtw
{
    /// <summary>
    /// A provider's enable state after a change, as its enable callback receives it.
    /// </summary>
    /// <param name="IsEnabled">Whether any session enables the provider.</param>
    /// <param name="Level">The highest level any session takes; <see cref="EtwLevel.None"/> = every level.</param>
    /// <param name="MatchAnyKeyword">OR of the sessions' keywords (all bits when one gave 0).</param>
    /// <param name="MatchAllKeyword">AND of the sessions' match-all keywords.</param>
    /// <param name="SessionHandle">The session whose change caused the call; 0 at registration.</param>
    /// <param name="CaptureState">A capture-state request (IsEnabled 2 in C): log your state; the level
    /// and keywords are the request's, the enablement is unchanged.</param>
    public readonly record struct ProviderEnableInfo(
        bool IsEnabled, EtwLevel Level, ulong MatchAnyKeyword, ulong MatchAllKeyword, ulong SessionHandle,
        bool CaptureState = false);
}
