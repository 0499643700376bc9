#!/usr/bin/python3
"""Drives one Python MySQL client against overloadsql for the Go tests beside this folder.

Usage: client.py DRIVER SCENARIO, DRIVER one of pymysql, mysqldb, sqlalchemy. The server is
given in the environment: OSQL_HOST, OSQL_PORT (main listener), OSQL_ADMIN_PORT, OSQL_USER,
OSQL_PASSWORD, OSQL_TABLE (a table name of its own). Every observation is printed as one JSON
line {"step": ..., ...}; an error as {"step": ..., "error": {"errno", "sqlstate", "message"}}.
The Go test asserts; this script only reports. Every wait is bounded.
"""
import json
import os
import sys
import time

import MySQLdb
import pymysql
import sqlalchemy
from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table

HOST = os.environ["OSQL_HOST"]
PORT = int(os.environ["OSQL_PORT"])
ADMIN_PORT = int(os.environ["OSQL_ADMIN_PORT"])
USER = os.environ["OSQL_USER"]
PASSWORD = os.environ["OSQL_PASSWORD"]
TABLE = os.environ["OSQL_TABLE"]
POLL_SECONDS = 15


def emit(step, **fields):
    print(json.dumps(dict(step=step, **fields), default=str), flush=True)


def error_of(exc, conn=None):
    """errno, SQLSTATE (None where the driver does not expose it) and message of a server error."""
    orig = getattr(exc, "orig", exc)  # SQLAlchemy wraps the driver's exception
    args = getattr(orig, "args", ())
    errno = args[0] if args and isinstance(args[0], int) else None
    message = args[1] if len(args) > 1 else str(orig)
    sqlstate = None
    if conn is not None and hasattr(conn, "sqlstate"):
        sqlstate = conn.sqlstate()
    return {"errno": errno, "sqlstate": sqlstate, "message": message}


def connect(driver, port=PORT, user=USER, password=PASSWORD):
    """A DB-API connection with the driver's defaults (autocommit off, as both drivers default)."""
    if driver == "mysqldb":
        return MySQLdb.connect(host=HOST, port=port, user=user, passwd=password, db="main",
                               connect_timeout=5)
    return pymysql.connect(host=HOST, port=port, user=user, password=password, database="main",
                           connect_timeout=5)


def engine(port=PORT, **kw):
    url = f"mysql+pymysql://{USER}:{PASSWORD}@{HOST}:{port}/main"
    return sqlalchemy.create_engine(url, connect_args={"connect_timeout": 5}, **kw)


def admin(sql):
    """Runs an admin statement on the admin listener (user default, empty password)."""
    conn = pymysql.connect(host=HOST, port=ADMIN_PORT, user="default", password="",
                           autocommit=True, connect_timeout=5)
    try:
        conn.cursor().execute(sql)
    finally:
        conn.close()


def rows(cur):
    return [list(r) for r in cur.fetchall()]


def scenario_connect(driver):
    if driver == "sqlalchemy":
        with engine().connect() as c:
            emit("connect", user=c.execute(sqlalchemy.text("SELECT CURRENT_USER()")).scalar())
        return
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute("SELECT CURRENT_USER()")
    emit("connect", user=cur.fetchone()[0])
    conn.close()


def scenario_crud(driver):
    create = f"CREATE TABLE {TABLE} (id INT PRIMARY KEY, name VARCHAR(40))"
    if driver == "sqlalchemy":
        with engine().begin() as c:
            c.execute(sqlalchemy.text(create))
            c.execute(sqlalchemy.text(f"INSERT INTO {TABLE} VALUES (:id, :name)"),
                      [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}, {"id": 3, "name": "it's"}])
            c.execute(sqlalchemy.text(f"UPDATE {TABLE} SET name = :n WHERE id = :id"), {"n": "TWO", "id": 2})
            c.execute(sqlalchemy.text(f"DELETE FROM {TABLE} WHERE id = :id"), {"id": 1})
        with engine().connect() as c:
            got = c.execute(sqlalchemy.text(f"SELECT id, name FROM {TABLE} ORDER BY id")).fetchall()
            emit("rows", rows=[list(r) for r in got])
        return
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute(create)
    cur.executemany(f"INSERT INTO {TABLE} VALUES (%s, %s)", [(1, "one"), (2, "two"), (3, "it's")])
    cur.execute(f"UPDATE {TABLE} SET name = %s WHERE id = %s", ("TWO", 2))
    cur.execute(f"DELETE FROM {TABLE} WHERE id = %s", (1,))
    conn.commit()
    conn.close()
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute(f"SELECT id, name FROM {TABLE} ORDER BY id")
    emit("rows", rows=rows(cur))
    conn.close()


def scenario_rollback(driver):
    """A transaction in the driver's own way: ROLLBACK must undo, COMMIT must keep."""
    count = f"SELECT COUNT(*) FROM {TABLE}"
    if driver == "sqlalchemy":
        eng = engine()
        with eng.begin() as c:
            c.execute(sqlalchemy.text(f"CREATE TABLE {TABLE} (id INT PRIMARY KEY)"))
        with eng.connect() as c:
            tx = c.begin()
            c.execute(sqlalchemy.text(f"INSERT INTO {TABLE} VALUES (1)"))
            tx.rollback()
            emit("after_rollback", count=c.execute(sqlalchemy.text(count)).scalar())
            tx = c.begin()
            c.execute(sqlalchemy.text(f"INSERT INTO {TABLE} VALUES (2)"))
            tx.commit()
        with eng.connect() as c:
            emit("after_commit", count=c.execute(sqlalchemy.text(count)).scalar())
        return
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {TABLE} (id INT PRIMARY KEY)")
    cur.execute(f"INSERT INTO {TABLE} VALUES (1)")
    conn.rollback()
    cur.execute(count)
    emit("after_rollback", count=cur.fetchone()[0])
    cur.execute(f"INSERT INTO {TABLE} VALUES (2)")
    conn.commit()
    conn.close()
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute(count)
    emit("after_commit", count=cur.fetchone()[0])
    conn.close()


def scenario_fk(driver):
    """A foreign key to a primary key: create_all for SQLAlchemy, plain DDL otherwise."""
    parent, child = TABLE + "_parent", TABLE + "_child"
    if driver == "sqlalchemy":
        md = MetaData()
        Table(parent, md, Column("id", Integer, primary_key=True), Column("name", String(40)))
        Table(child, md, Column("id", Integer, primary_key=True),
              Column("parent_id", Integer, ForeignKey(f"{parent}.id"), nullable=False))
        eng = engine()
        md.create_all(eng)
        emit("created", tables=sorted(n for n in sqlalchemy.inspect(eng).get_table_names() if n.startswith(TABLE)))
        emit("primary_key", columns=sqlalchemy.inspect(eng).get_pk_constraint(parent)["constrained_columns"])
        with eng.begin() as c:
            c.execute(sqlalchemy.text(f"INSERT INTO {parent} VALUES (1, 'p')"))
            c.execute(sqlalchemy.text(f"INSERT INTO {child} VALUES (1, 1)"))
        try:
            with eng.begin() as c:
                c.execute(sqlalchemy.text(f"INSERT INTO {child} VALUES (2, 99)"))
            emit("orphan")
        except sqlalchemy.exc.DBAPIError as e:
            emit("orphan", error=error_of(e))
        return
    conn = connect(driver)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {parent} (id INT PRIMARY KEY, name VARCHAR(40))")
    cur.execute(f"CREATE TABLE {child} (id INT PRIMARY KEY, parent_id INT NOT NULL, "
                f"FOREIGN KEY (parent_id) REFERENCES {parent}(id))")
    emit("created", tables=sorted([parent, child]))
    cur.execute(f"INSERT INTO {parent} VALUES (1, 'p')")
    cur.execute(f"INSERT INTO {child} VALUES (1, 1)")
    conn.commit()
    try:
        cur.execute(f"INSERT INTO {child} VALUES (2, 99)")
        conn.commit()
        emit("orphan")
    except MySQLdb.MySQLError as e:
        emit("orphan", error=error_of(e, conn))
    except pymysql.MySQLError as e:
        emit("orphan", error=error_of(e))
    conn.close()


def poll(what, attempt):
    """Calls attempt() until it returns something other than None, at most POLL_SECONDS."""
    deadline = time.monotonic() + POLL_SECONDS
    tries = 0
    while time.monotonic() < deadline and tries < 1000:
        tries += 1
        got = attempt()
        if got is not None:
            return got, tries
        time.sleep(0.05)
    emit(what, timeout=POLL_SECONDS, tries=tries)
    sys.exit(1)


def scenario_overload(driver):
    """745 under a simulated overload, then the session lowers its own threshold and goes on."""
    admin("SET GLOBAL simulated_os_cpu_overload = 7")
    try:
        if driver == "sqlalchemy":
            eng = engine()
            with eng.connect() as c:
                c.execute(sqlalchemy.text("SET min_os_cpu_wait_time_ratio_to_throw = 1, "
                                          "max_os_cpu_wait_time_ratio_to_throw = 2"))

                def attempt():
                    try:
                        c.execute(sqlalchemy.text("SELECT 1"))
                    except sqlalchemy.exc.DBAPIError as e:
                        return error_of(e)
                    return None
                err, tries = poll("rejected", attempt)
                emit("rejected", error=err, tries=tries)
                c.execute(sqlalchemy.text("SET max_os_cpu_wait_time_ratio_to_throw = 0"))
                emit("after", value=c.execute(sqlalchemy.text("SELECT 1")).scalar())
            return
        conn = connect(driver)
        cur = conn.cursor()
        cur.execute("SET min_os_cpu_wait_time_ratio_to_throw = 1, max_os_cpu_wait_time_ratio_to_throw = 2")

        def attempt():
            try:
                cur.execute("SELECT 1")
                cur.fetchall()
            except (MySQLdb.MySQLError, pymysql.MySQLError) as e:
                return error_of(e, conn)
            return None
        err, tries = poll("rejected", attempt)
        emit("rejected", error=err, tries=tries)
        cur.execute("SET max_os_cpu_wait_time_ratio_to_throw = 0")
        cur.execute("SELECT 1")
        emit("after", value=cur.fetchone()[0])
        conn.close()
    finally:
        admin("SET GLOBAL simulated_os_cpu_overload = -1")


def scenario_first_connect(driver):
    """A new SQLAlchemy engine connects while every new session rejects ordinary work: the
    queries a dialect runs on a new connection (SELECT VERSION(), DATABASE(), @@vars) are
    session introspection, which is never rejected; SELECT 1 is ordinary work and is."""
    admin("SET GLOBAL simulated_os_cpu_overload = 7")
    admin("SET GLOBAL min_os_cpu_wait_time_ratio_to_throw = 1")
    admin("SET GLOBAL max_os_cpu_wait_time_ratio_to_throw = 2")
    try:
        def probe():
            conn = connect("pymysql")
            try:
                conn.cursor().execute("SELECT 1")
            except pymysql.MySQLError as e:
                return error_of(e)
            finally:
                conn.close()
            return None
        err, tries = poll("overloaded", probe)
        emit("overloaded", error=err, tries=tries)
        try:
            c = engine().connect()
        except sqlalchemy.exc.DBAPIError as e:
            emit("connected", error=error_of(e))
            return
        emit("connected", value=1)
        try:
            c.execute(sqlalchemy.text("SELECT 1"))
            emit("select_1")
        except sqlalchemy.exc.DBAPIError as e:
            emit("select_1", error=error_of(e))
        c.close()
    finally:
        admin("SET GLOBAL min_os_cpu_wait_time_ratio_to_throw = 0")
        admin("SET GLOBAL max_os_cpu_wait_time_ratio_to_throw = 0")
        admin("SET GLOBAL simulated_os_cpu_overload = -1")


def scenario_pool(driver):
    """New connections get 1040 while dropping is on; once it ends, the pool (or a plain
    connect) works again without being rebuilt."""
    eng = engine(pool_pre_ping=True, pool_size=2) if driver == "sqlalchemy" else None

    def use():
        if eng is not None:
            with eng.connect() as c:
                return c.execute(sqlalchemy.text("SELECT 1")).scalar()
        conn = connect(driver)
        try:
            cur = conn.cursor()
            cur.execute("SELECT 1")
            return cur.fetchone()[0]
        finally:
            conn.close()

    emit("before", value=use())
    admin("SET GLOBAL simulated_os_cpu_overload = 7")
    admin("SET GLOBAL min_os_cpu_wait_time_ratio_to_drop_connection = 1")
    admin("SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = 2")
    try:
        def dropped():
            if eng is not None:
                eng.dispose()  # the pooled connections stay open under dropping; ask for new ones
            try:
                use()
            except (sqlalchemy.exc.DBAPIError, MySQLdb.MySQLError, pymysql.MySQLError) as e:
                return error_of(e)
            return None
        err, tries = poll("dropped", dropped)
        emit("dropped", error=err, tries=tries)
    finally:
        admin("SET GLOBAL min_os_cpu_wait_time_ratio_to_drop_connection = 0")
        admin("SET GLOBAL max_os_cpu_wait_time_ratio_to_drop_connection = 0")
        admin("SET GLOBAL simulated_os_cpu_overload = -1")

    def recovered():
        try:
            return use()
        except (sqlalchemy.exc.DBAPIError, MySQLdb.MySQLError, pymysql.MySQLError):
            return None
    value, tries = poll("recovered", recovered)
    emit("recovered", value=value, tries=tries)


SCENARIOS = {
    "connect": scenario_connect,
    "crud": scenario_crud,
    "rollback": scenario_rollback,
    "fk": scenario_fk,
    "overload": scenario_overload,
    "first_connect": scenario_first_connect,
    "pool": scenario_pool,
}

if __name__ == "__main__":
    driver, scenario = sys.argv[1], sys.argv[2]
    try:
        SCENARIOS[scenario](driver)
    except (MySQLdb.MySQLError, pymysql.MySQLError, sqlalchemy.exc.DBAPIError) as e:
        emit("unexpected", error=error_of(e))
        sys.exit(1)
