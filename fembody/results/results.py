"""Result: the states a solver kept, with accessors by node, energies, reactions and counters."""
from __future__ import annotations

import contextlib
import os
import pathlib
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from .. import space as spaces
from .. import validate
from ..errors import ModelError
from . import result_access as access
from ..version import __version__

if TYPE_CHECKING:
    from ..model.bodies import NodeLike, RigidBody
    from ..joints.base import Joint
    from ..system import System

_ARRAYS = ("time", "q", "v", "a", "lam", "load_factor", "reactions", "iterations", "work",
           "constraint_work", "dissipated", "violation", "stability", "friction",
           "friction_elastic", "contact_friction", "contact_sides", "model_time")
_FIELDS = frozenset(_ARRAYS) - {"time", "q"}
# what :meth:`Result.record` stores for a field it is not given
_DEFAULTS = {k: 0 if k == "iterations" else None for k in _ARRAYS[2:]}


class Result:
    """Saved states of a static or dynamic analysis.

    Arrays (one row per saved state): ``time`` [s] (statics: the load factor for load steps,
    then the time [s] along ``fb.static(times=...)``), ``model_time`` [s] (the model time at
    which loads and drivers were evaluated: ``time`` itself for dynamics; statics: the
    static's ``t``, then each time along ``times``),
    ``q`` (n, nq: configurations as the model's configuration space stores them; read them
    through :meth:`position`, :meth:`displacement`, :meth:`rotation` or :meth:`coordinates`),
    ``v``, ``a`` (n, n_dof: velocities, accelerations per velocity DOF), ``lam`` (joint
    multipliers), ``load_factor``, ``reactions`` (n, n_dof: the support forces on fixed DOFs,
    zero elsewhere) [N, N m], ``iterations`` (Newton iterations per state), ``violation``;
    with frictional contacts ``contact_friction`` (n, rows, 3): per row of their blocks (in
    the System's ``friction_blocks`` order) the tangential force [N], the accumulated slip [m]
    and stick (1 or 0) at each saved state, from the run's anchors (what
    :attr:`contacts` reports; :func:`fembody.results.contacts.friction_rows`); with planar
    beam pairs ``contact_sides`` (n, pairs): the run's side (+1/-1/0) of each pair's node at
    each saved state (``System.side_blocks`` in order), from which :attr:`contacts` and
    :meth:`resultants` sign the pairs' gaps as the run did
    (:func:`fembody.results.contacts.recorded_sides`). ``stats`` holds counters (residual evaluations, tangent assemblies,
    factorisations, Newton iterations, wall time [s], linear solver). ``impacts`` lists the
    impacts of a dynamic analysis with impulse contacts, one dict each: ``time`` [s],
    ``contact`` (index), ``name``, ``node`` (id), ``impulse`` (normal impulse [N s]),
    ``impulse_vector`` (impulse on the node [N s]), ``v_before``/``v_after`` (normal gap
    rates [m/s]), ``persistent`` (the contact went on resting), ``energy_loss`` [J] (of the
    whole impact event).
    """

    def __init__(self, system: "System | None", kind: str) -> None:
        self.system = system
        self.kind = kind
        self.stats: dict = {}
        self.impacts: list[dict] = []
        self._rows: dict[str, list] = {k: [] for k in _ARRAYS}
        self._cache: dict[str, np.ndarray] = {}
        self._fingerprint: str | None = None
        # sensors: one float row per step (time, then every sensor's components) in a buffer
        # that doubles when full: 8 bytes per number, no per-step Python objects
        self._sensor_buf: np.ndarray | None = None
        self._sensor_n = 0
        self._sensor_cols: dict[str, tuple[int, int]] = {}
        self.sensor_components: dict[str, tuple] = {}
        if system is not None:
            self.space = system.space
            self.node_dofs = system.node_dofs
            self.q0 = system.q0
            self.X = system.X

    # --------------------------------------------------------------- record
    def record(self, time: float, q: np.ndarray, **fields) -> None:
        """Append a state; ``fields`` are any of the per-state arrays (copied)."""
        if not _FIELDS.issuperset(fields):
            raise TypeError(f"Result.record: unknown fields {sorted(set(fields) - _FIELDS)}")
        # (the driver records every output point: no row dictionary, each list appended once)
        rows, ndarray = self._rows, np.ndarray
        rows["time"].append(time)
        rows["q"].append(q.copy())
        for k, val in fields.items():
            rows[k].append(val.copy() if isinstance(val, ndarray) else val)
        for k in _FIELDS.difference(fields):
            rows[k].append(_DEFAULTS[k])
        self._cache.clear()

    def record_sensors(self, time: float, sensors: list, values: list) -> None:
        """Append one row of every sensor (``fembody.model.sensors.Sensor`` list, their values)."""
        row = np.concatenate([[float(time)], *(np.ravel(v) for v in values)])
        if self._sensor_buf is None:
            col = 1
            for sen, val in zip(sensors, values):
                self._sensor_cols[sen.name] = (col, col + np.size(val))
                self.sensor_components[sen.name] = tuple(sen.components)
                col += np.size(val)
            self._sensor_buf = np.empty((64, len(row)))
        elif self._sensor_n == len(self._sensor_buf):
            self._sensor_buf = np.concatenate([self._sensor_buf, np.empty_like(self._sensor_buf)])
        self._sensor_buf[self._sensor_n] = row
        self._sensor_n += 1

    @property
    def sensor_names(self) -> list[str]:
        """Names of the recorded sensors (``model.add_sensor``)."""
        return list(self._sensor_cols)

    def sensor(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(time [s], values) of sensor ``name``, recorded at every output step: values (n,)
        for a one-component quantity, else (n, k) (components in ``sensor_components``)."""
        if name not in self._sensor_cols:
            raise ModelError(f"Result.sensor: no sensor {name!r}; recorded: "
                             f"{', '.join(map(repr, self._sensor_cols)) or 'none'} (declare "
                             "them with model.add_sensor before simulate)")
        a, b = self._sensor_cols[name]
        data = self._sensor_buf[:self._sensor_n]
        return data[:, 0].copy(), (data[:, a].copy() if b == a + 1 else data[:, a:b].copy())

    def to_dataframe(self, *what, **options):
        """A pandas DataFrame of chosen histories (pandas is needed; see
        :func:`fembody.results.tables.dataframe` for ``what``: nodes, joints, 'energy', sensors)."""
        from .tables import dataframe
        return dataframe(self, *what, **options)

    def to_csv(self, path, *what, **options) -> pathlib.Path:
        """Write :meth:`to_dataframe` ``(*what)`` to a CSV file (folders are created)."""
        from .tables import write_csv
        return write_csv(self, path, *what, **options)

    def _array(self, key: str) -> np.ndarray | None:
        if key not in self._cache:
            rows = self._rows[key]
            if not rows or rows[0] is None:
                return None
            self._cache[key] = np.array(rows)
        return self._cache[key]

    def __len__(self) -> int:
        return len(self._rows["time"])

    time = property(lambda self: self._array("time"), doc="Time [s] or load factor per state.")
    q = property(lambda self: self._array("q"), doc="Configurations (n, nq) as stored.")
    v = property(lambda self: self._array("v"), doc="Velocities (n, n_dof).")
    a = property(lambda self: self._array("a"), doc="Accelerations (n, n_dof).")
    load_factor = property(lambda self: self._array("load_factor"), doc="Load factor per state.")

    @property
    def model_time(self) -> np.ndarray | None:
        """The model time [s] of each state, the time at which its loads, drivers and time
        functions were evaluated. A dynamic result's ``time``; a static result's ``t`` for
        its load steps, then each time along ``fb.static(times=...)`` (where ``time`` holds
        the load factor for the load steps: see :func:`fembody.static`). None for a static
        result saved by a fembody that did not record it."""
        t = self._array("model_time")
        if t is None and self.kind == "dynamic":
            return self.time
        return t

    @property
    def reactions(self) -> np.ndarray | None:
        """Support reactions (n, n_dof) [N, N m] on the fixed DOFs (zero elsewhere); for a
        dynamic result computed on first use from the saved states."""
        R = self._array("reactions")
        if R is None and self.kind == "dynamic" and self.system is not None and len(self):
            lam = self.lam if self.lam is not None else [np.zeros(0)] * len(self)
            R = np.array([self.system.reactions(q, v, a, l, t) for q, v, a, l, t in
                          zip(self.q, self.v, self.a, lam, self.time)])
            self._cache["reactions"] = R
        return R
    iterations = property(lambda self: self._array("iterations"),
                          doc="Newton iterations per state.")
    lam = property(lambda self: self._array("lam"), doc="Lagrange multipliers (n, n_con).")
    stability = property(lambda self: self._array("stability"),
                         doc="Statics: lowest eigenvalue of the constrained tangent per state "
                             "(negative: an unstable equilibrium; see stats['unstable']); NaN "
                             "where static(stability='check') proved the state stable "
                             "without computing it.")
    @property
    def stable(self) -> np.ndarray | None:
        """Statics: per state, False where the equilibrium is unstable (kept by
        ``static(unstable='accept')`` or the arc-length method), True elsewhere; None for a
        dynamic Result."""
        if self.kind != "static":
            return None
        out = np.ones(len(self), bool)
        out[list(self.stats.get("unstable_states", ()))] = False
        return out

    violation = property(lambda self: self._array("violation"),
                         doc="Largest position-constraint violation |phi| per state [m, rad].")

    # ------------------------------------------------- per node and per joint
    @property
    def dim(self) -> int:
        """2 (planar) or 3 (spatial)."""
        return getattr(self.space, "dim", 2)

    def coordinates(self, dofs=None) -> np.ndarray:
        """Coordinates per velocity DOF (n, n_dof), or of the DOFs ``dofs``: displacements from
        the reference [m], rotation increments [rad] (continuous in time, through any number
        of turns, as long as a node turns less than pi between saved states) and scalar
        coordinates (modal amplitudes)."""
        return access.coordinates(self, dofs)

    def position(self, node: NodeLike) -> np.ndarray:
        """Current position of ``node`` per state.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            Named by the same rule as everywhere (:meth:`fembody.Model.node`).

        Returns
        -------
        numpy.ndarray
            (n, 2) or, in space, (n, 3) [m].

        Raises
        ------
        ModelError
            A node not in this result's model.

        Examples
        --------
        A ball falls 4.905 m in the first second:

        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> ball = m.add_rigid_body((0.0, 10.0), 1.0, 1e-3)
        >>> result = fb.simulate(m, t_end=1.0, dt=1e-2)
        >>> print(f"{result.position(ball)[-1, 1]:.3f}")
        5.095
        """
        return access.position(self, node)

    def displacement(self, node: NodeLike) -> np.ndarray:
        """Displacement of ``node`` from its reference position per state.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            Named by the same rule as everywhere (:meth:`fembody.Model.node`): e.g. ``"tip"``
            is the last node of the model's first body.

        Returns
        -------
        numpy.ndarray
            (n, 2) or, in space, (n, 3) [m].

        Raises
        ------
        ModelError
            A node not in this result's model.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> ball = m.add_rigid_body((0.0, 10.0), 1.0, 1e-3)
        >>> result = fb.simulate(m, t_end=1.0, dt=1e-2)
        >>> print(f"{result.displacement(ball)[-1, 1]:.3f}")
        -4.905
        """
        return access.displacement(self, node)

    def rotation(self, node: NodeLike, as_: str = "matrix") -> np.ndarray:
        """Rotation of ``node`` per state. Planar: the angle (n,) [rad] (its cross-section or
        rigid-body angle increment, continuous through full turns). Spatial: the rotation
        matrices (n, 3, 3) (columns: the node's axes in the global frame), or with
        ``as_="quaternion"`` unit quaternions (n, 4) (w first), or ``as_="vector"`` the
        rotation vector from the reference (n, 3) [rad], continuous in time like the planar
        angle (no jump at a half turn: past it the vector is longer than pi; see
        :func:`fembody.rotations.unwrap_vectors`). Both histories assume a node turns less
        than pi between saved states.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            A node with a rotation DOF.
        as_ : {'matrix', 'quaternion', 'vector'}, default 'matrix'
            Spatial models: the form of the rotation.

        Returns
        -------
        numpy.ndarray
            (n,) planar; (n, 3, 3), (n, 4) or (n, 3) spatial.

        Raises
        ------
        ModelError
            A node without a rotation DOF, an unknown ``as_``.

        Examples
        --------
        A wheel spinning at 10 rad/s has turned 10 rad after a second (through the half turns):

        >>> import fembody as fb
        >>> m = fb.Model()
        >>> wheel = m.add_rigid_body((0.0, 0.0), 1.0, 0.1)
        >>> m.set_velocity(wheel, (0.0, 0.0), omega=10.0)
        >>> print(f"{fb.simulate(m, t_end=1.0, dt=1e-2).rotation(wheel)[-1]:.6f}")
        10.000000
        """
        return access.rotation(self, node, as_)

    def com(self, body: "RigidBody") -> np.ndarray:
        """Position of the centre of mass of a rigid body per state.

        Parameters
        ----------
        body : RigidBody
            What ``model.add_rigid_body`` returned.

        Returns
        -------
        numpy.ndarray
            (n, 2) planar or (n, 3) spatial [m]: the carrying node's position plus the body's
            ``offset`` turned by the node's rotation. For the node itself use
            :meth:`position`.

        Raises
        ------
        ModelError
            When ``body`` is not a rigid body of this result's model.

        Examples
        --------
        A spinning body's centre of mass falls as a point does; its node does not:

        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> body = m.add_rigid_body((0.0, 0.0), 1.0, 0.01, offset=(0.2, 0.0))
        >>> m.set_velocity(body, (0.0, -2.0), omega=5.0)      # the centre: (0, -1) m/s
        >>> result = fb.simulate(m, t_end=1.0, dt=1e-3)
        >>> print(f"{result.com(body)[-1, 1]:.4f}")           # -1 - 9.81 / 2
        -5.9050
        """
        return access.com(self, body)

    def velocity(self, node: NodeLike) -> np.ndarray:
        """Velocity (n, 2) or (n, 3) [m/s] of ``node``."""
        return access.velocity(self, node)

    def angular_velocity(self, node: NodeLike) -> np.ndarray:
        """Angular velocity of ``node`` [rad/s]: (n,) planar; (n, 3) spatial, in the node's own
        (material) axes."""
        return access.angular_velocity(self, node)

    def reaction(self, node: NodeLike) -> np.ndarray:
        """Support reaction per state at ``node``: (n, 3) = (Fx [N], Fy [N], Mz [N m]) planar,
        (n, 6) = (Fx, Fy, Fz [N], Mx, My, Mz [N m]) spatial, the moments on the node's material
        rotation DOFs (zero where the DOF is free or absent).

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            A supported node (``model.fix``).

        Returns
        -------
        numpy.ndarray
            (n, 3) planar, (n, 6) spatial [N, N m].

        Raises
        ------
        ModelError
            A node not in this result's model.

        Examples
        --------
        A cantilever's clamp carries the tip load and its moment:

        >>> import fembody as fb
        >>> m = fb.Model()
        >>> beam = m.add_beam((0, 0), (2, 0), n=4, material=fb.Material(E=210e9, rho=7850.0),
        ...                   section=fb.Section.rectangle(b=0.02, h=0.02))
        >>> m.fix(beam.first)
        >>> load = m.add_force(beam.last, (0.0, -10.0))
        >>> print(fb.static(m, steps=1).reaction(beam.first)[-1].round(3))
        [ 0. 10. 20.]
        """
        return access.reaction(self, node)

    def joint_reaction(self, joint: "Joint", frame: str | None = None) -> np.ndarray:
        """Reaction of ``joint`` per state (n, rows): for Pin/Weld/RigidLink the force (and
        moment) the joint exerts on its second node [N, N m]; Distance: the link tension [N];
        Slider: the normal force (and moment); Driver: the driving force or torque; Support:
        the support reactions. Spatial joints with a ``frame`` ('global', 'a' or 'b'): the
        force and the moment about the joint point that the joint exerts on its second node,
        (n, 6) = (Fx, Fy, Fz [N], Mx, My, Mz [N m]) in that frame.

        Parameters
        ----------
        joint : Joint
            A joint of this result's model.
        frame : {'global', 'a', 'b'}, optional
            Spatial joints: the frame of the force and moment (default: the multipliers).

        Returns
        -------
        numpy.ndarray
            (n, rows) [N, N m].

        Raises
        ------
        ModelError
            A joint of another model; ``frame`` on a planar joint.

        Examples
        --------
        A pendulum hanging at rest: the pin holds its weight (the force on the bob is up):

        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> bob = m.add_rigid_body((0.0, -1.0), 2.0, 1e-3)
        >>> pin = m.add_joint(fb.Distance(m.ground, bob))
        >>> result = fb.simulate(m, t_end=0.1, dt=1e-2)
        >>> print(f"{result.joint_reaction(pin)[-1, 0]:.3f}")     # the link's tension [N]
        19.620
        """
        return access.joint_reaction(self, joint, frame)

    # ------------------------------------------------------ whole-model measures
    def resultants(self, family: str = "beam", step: int | None = None) -> np.ndarray:
        """Stress resultants (n_states, n_elements, k) of an element family, or (n_elements, k)
        of the saved state ``step`` alone: planar (N, V, M) [N, N, N m]; spatial beams
        (N, Vy, Vz, T, My, Mz) in the section frame; spatial bars (N,). A family of several
        blocks (the beam contacts: element pairs, then node pairs, junction rows and wedge
        points where the model has them, :meth:`fembody.System.blocks_of`) gives the rows of
        all of them, one block after the other in the System's order (the order of
        :attr:`contacts`' rows of that family)."""
        sys = self._need_system("resultants")
        families = [b.family for b in sys.blocks if hasattr(b, "resultants")]
        validate.choice("family", family, families, where="Result.resultants")
        blocks = sys.blocks_of(family)

        from .contacts import recorded_sides

        def at(k):
            # a planar pair signed by the run's side at state k, as the run held it
            rs = []
            for b in blocks:
                side = recorded_sides(self, sys, b, k)
                x = sys.pose(b, self.q[k])
                rs.append(b.resultants(x) if side is None else b.resultants(x, side))
            return rs[0] if len(rs) == 1 else np.concatenate(rs)
        if step is not None:
            n = len(self)
            step = validate.integer("step", step, minimum=-n, where="Result.resultants")
            if step >= n:
                raise ModelError(f"Result.resultants: step {step} is out of range: the result "
                                 f"has {n} saved states (0..{n - 1}, or negative from the end)")
            return at(step)
        return np.array([at(k) for k in range(len(self))])

    @property
    def contacts(self):
        """Contact histories (a :class:`fembody.results.contacts.ContactHistory`): per
        saved state and contact row (node contacts, beam pairs, the sample points of beams and
        nodes against surfaces) the ``gap`` [m], ``normal_force`` [N], ``point`` [m] and
        ``normal``, with the rows' ``labels`` and ``families``; ``to_dataframe()`` gives a
        table. ``contacts["normal_force"][k].sum()`` is the total normal force at state k."""
        if "contacts" not in self._cache:
            from .contacts import history
            self._cache["contacts"] = history(self)
        return self._cache["contacts"]

    def _need_system(self, what: str) -> "System":
        if self.system is None:
            raise ModelError(f"Result.{what}: needs the model; this result was loaded from a file "
                             "without one")
        return self.system

    @property
    def energy(self) -> SimpleNamespace:
        """Energies per state [J], namespaced as ``kinetic``, ``strain``, ``gravity`` (potential), ``total``
        (their sum), ``work`` of the applied nodal loads, ``constraint_work`` done by drivers,
        ``dissipated`` by damping and impacts (the kinetic energy impulses remove),
        ``friction`` dissipated by the slip of frictional contacts (0 without; the energy
        held by their tangential springs is part of ``strain``), and ``balance = total -
        work - constraint_work + dissipated + friction``, which stays constant up to the
        integrator's error."""
        if "energy" in self._cache:
            return self._cache["energy"]
        sys = self._need_system("energy")
        q = self.q
        strain = np.array([sys.strain_energy(qi) for qi in q])
        grav = np.array([sys.gravity_energy(qi) for qi in q])
        kin = (np.array([sys.kinetic_energy(qi, vi) for qi, vi in zip(q, self.v)])
               if self.v is not None else np.zeros(len(q)))
        zeros = np.zeros(len(q))
        work = self._array("work")
        cwork = self._array("constraint_work")
        diss = self._array("dissipated")
        work = zeros if work is None else work
        cwork = zeros if cwork is None else cwork
        diss = zeros if diss is None else diss
        fric, held = self._array("friction"), self._array("friction_elastic")
        fric = zeros if fric is None else fric
        if held is not None:        # the tangential springs' energy (a run's history)
            strain = strain + held
        total = kin + strain + grav
        e = SimpleNamespace(kinetic=kin, strain=strain, gravity=grav, total=total, work=work,
                            constraint_work=cwork, dissipated=diss, friction=fric,
                            balance=total - work - cwork + diss + fric)
        self._cache["energy"] = e
        return e

    def noether(self) -> np.ndarray:
        """Noether quantity of time invariance per state [J]: the work of the applied loads and
        drivers minus the energy (kinetic + strain + gravity) and the dissipated energy, i.e.
        paper 000's I_N = tau theta - E generalised (constant up to the integrator's error)."""
        return -self.energy.balance

    def angular_momentum(self, about=None) -> np.ndarray:
        """Angular momentum about the point ``about`` (default the origin) per state
        [kg m^2/s]: (n,) planar, (n, 3) spatial in global axes (conserved when no external
        moment acts about that point, e.g. a free body or one pinned there)."""
        sys = self._need_system("angular_momentum")
        if about is not None:
            about = validate.array("about", about, (sys.dim,), where="Result.angular_momentum",
                                   hint=f"a point {sys.dimension.point_hint} [m]")
        if self.v is None:
            raise ModelError("Result: this analysis has no velocities (it is static)")
        return np.array([sys.angular_momentum(q, v, about) for q, v in zip(self.q, self.v)])

    def linear_momentum(self) -> np.ndarray:
        """Total linear momentum per state (n, dim) [kg m/s]."""
        sys = self._need_system("linear_momentum")
        if self.v is None:
            raise ModelError("Result: this analysis has no velocities (it is static)")
        return np.array([sys.linear_momentum(q, v) for q, v in zip(self.q, self.v)])

    # ---------------------------------------------------------------- files
    def save(self, path) -> pathlib.Path:
        """Write the result to a compressed ``.npz`` file (``path`` without a suffix gets
        ``.npz``; another suffix is refused), whole or not at all (a temporary file renamed
        into place). The file carries fembody's version and a fingerprint of the model, so
        :meth:`load` refuses it for another model. Returns the path written."""
        import json
        import tempfile                  # (json, tempfile, zipfile: when used, fast start-up)
        path = _npz_path(path, "Result.save")
        arrays = {k: v for k in _ARRAYS if (v := self._array(k)) is not None}
        meta = dict(q0=self.q0, kind=self.kind, stats=json.dumps(self.stats),
                    impacts=json.dumps(self.impacts), version=__version__,
                    fingerprint=self.system.fingerprint() if self.system is not None else
                    self._fingerprint or "")
        if self._sensor_buf is not None:
            arrays["sensor_data"] = self._sensor_buf[:self._sensor_n]
            meta["sensor_layout"] = json.dumps({k: [*self._sensor_cols[k],
                                                    self.sensor_components[k]]
                                                for k in self._sensor_cols})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        except OSError as exc:
            raise ModelError(f"Result.save: cannot write '{path}' ({exc.strerror}); choose a "
                             "folder you can write to") from exc
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez_compressed(f, **meta, **self.space.state(), **arrays)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise
        return path

    @classmethod
    def load(cls, path, model=None) -> "Result":
        """Read a result saved with :meth:`save` (``"r"`` finds ``r.npz``); pass the ``model``
        to get energies and resultants back: it must be the model the result was computed
        with (its fingerprint is checked)."""
        import json
        import zipfile
        path = _npz_path(path, "Result.load")
        if model is not None and not callable(getattr(model, "compile", None)):
            raise ModelError(f"Result.load: model must be the fb.Model the result was computed "
                             f"with, got {model!r}")
        if not path.is_file():
            raise ModelError(f"Result.load: no file '{path}'")
        try:
            with np.load(path, allow_pickle=False) as f:
                data = {k: f[k] for k in f.files}
            n = len(data["time"])
            space = (spaces.from_state(data) if "space" in data else
                     spaces.make("planar", data["node_dofs"], len(data["q0"]), data["X"]))
            kind, stats = str(data["kind"]), json.loads(str(data["stats"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise ModelError(f"Result.load: '{path}' is not a readable fembody result "
                             f"(corrupt, truncated or another kind of file: "
                             f"{type(exc).__name__}: {exc})") from exc
        saved = str(data.get("fingerprint", ""))
        system = None
        if model is not None:
            system = model.compile(space=space.name)
            if system.n_dof != space.nv or (saved and saved != system.fingerprint()):
                raise ModelError(
                    f"Result.load: '{path}' was computed with another model (fembody "
                    f"{data.get('version', '?')}; its nodes, elements, materials, sections, "
                    "masses, loads, gravity, damping, joints, contacts or initial velocities "
                    "differ from this model's); load it with the model that produced it, or "
                    "without a model (Result.load(path)) for its states alone")
        res = cls(system, kind)
        res.space = space
        res.node_dofs = space.node_dofs
        res.q0 = data["q0"]
        res.X = space.X
        res._fingerprint = saved
        res.stats = stats
        res.impacts = json.loads(str(data["impacts"])) if "impacts" in data else []
        for k in _ARRAYS:
            res._rows[k] = list(data[k]) if k in data else [None] * n
        if "sensor_data" in data:
            res._sensor_buf = data["sensor_data"]
            res._sensor_n = len(res._sensor_buf)
            for k, (a, b, comps) in json.loads(str(data["sensor_layout"])).items():
                res._sensor_cols[k], res.sensor_components[k] = (a, b), tuple(comps)
        return res

    def checkpoint_state(self) -> dict:
        """The state a checkpoint saves: the recorded rows with each list of equal-shape
        numbers or arrays stacked into one array (pickling thousands of small arrays one by
        one is what a write would cost), the derived caches left out."""
        return {**vars(self), "_rows": _pack_rows(self._rows), "_cache": {}}

    @classmethod
    def from_checkpoint_state(cls, state: dict) -> "Result":
        """The Result of :meth:`checkpoint_state`, its rows as they were, bit for bit."""
        obj = cls.__new__(cls)
        obj.__dict__.update(state)
        obj._rows = _unpack_rows(state["_rows"])
        n = len(obj._rows["time"])
        for k in _ARRAYS:            # (a checkpoint written before a field existed)
            obj._rows.setdefault(k, [None] * n)
        obj._cache = {}
        return obj

    def __repr__(self) -> str:
        bad = self.stats.get("unstable_states", ())
        flag = (f", {len(bad)} unstable (stable=False) from load factor "
                f"{self.stats['unstable'][0]:.6g}" if bad else "")
        return f"Result({self.kind}, {len(self)} states{flag}, stats={self.stats})"

    def __getattr__(self, name: str):
        # only reached for a name the Result does not have: results do not import viz, so
        # the plotting method went to viz; say where
        if name == "plot":
            raise AttributeError("Result.plot is gone (results do not import viz): plot the "
                                 "histories with fb.viz.history(result, ...), which takes "
                                 "the same arguments")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _npz_path(path, where: str) -> pathlib.Path:
    """``path`` as a ``.npz`` path: no suffix gets one, another suffix is an error."""
    if not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"{where}: path must be a file name (str or pathlib.Path), got {path!r}")
    p = pathlib.Path(path)
    if str(path).endswith(("/", os.sep)) or p.name == "":
        raise ModelError(f"{where}: '{path}' is a folder; give a file name, e.g. "
                         f"'{p / 'result.npz'}'")
    if p.suffix == "":
        return p.with_name(p.name + ".npz")
    if p.suffix.lower() != ".npz":
        raise ModelError(f"{where}: results are stored as .npz files, not '{p.suffix}'; use "
                         f"'{p.with_suffix('.npz')}' (fb.io.write_result exports VTU/XDMF)")
    return p


def _pack_rows(rows: dict) -> dict:
    """Each list of equal-shape numbers or arrays of ``rows`` stacked into one array;
    :func:`_unpack_rows` gives the same values back."""
    out = {}
    for key, vals in rows.items():
        if vals:
            try:
                stacked = np.array(vals)
            except ValueError:                # ragged rows: kept as they are
                stacked = None
            # None among the values or a mix of kinds gives an object array: kept as is
            if stacked is not None and stacked.dtype.kind in "fiub" and \
                    stacked.shape[0] == len(vals):
                out[key] = ("packed", stacked, isinstance(vals[0], np.ndarray))
                continue
        out[key] = vals
    return out


def _unpack_rows(rows: dict) -> dict:
    return {k: ((list(v[1]) if v[2] else v[1].tolist()) if isinstance(v, tuple) else v)
            for k, v in rows.items()}
