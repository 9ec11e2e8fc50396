@_exported import TimeSync
